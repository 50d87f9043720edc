"""torch.library and torch.ops: custom_op (schema inference, autograd, fake, kernels per device), Library
define/impl, schema parsing and its errors, ops under fx tracing and torch.compile, opcheck."""

from __future__ import annotations

import itertools
import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch
from minitorch import Tensor

_count = itertools.count()


def _ns():
    """A fresh namespace per test: the operator registry is process-wide."""
    return f"tlib{next(_count)}"


def test_custom_op_call_schema_and_namespace():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::scale", mutates_args=())
    def scale(x: Tensor, a: float = 2.0) -> Tensor:
        return x * a

    x = torch.arange(6.0).reshape(2, 3).t()  # non-contiguous
    np.testing.assert_allclose(scale(x).numpy(), x.numpy() * 2)
    np.testing.assert_allclose(getattr(torch.ops, ns).scale(x, 3.0).numpy(), x.numpy() * 3)
    np.testing.assert_allclose(getattr(torch.ops, ns).scale.default(x, a=0.5).numpy(), x.numpy() * 0.5)
    op = getattr(torch.ops, ns).scale.default
    assert str(op._schema) == f"{ns}::scale(Tensor x, float a=2.) -> Tensor"
    assert op.name() == f"{ns}::scale" and op.namespace == ns and op.__name__ == "scale.default"
    assert repr(op) == f"{ns}.scale.default" and repr(scale) == f"<CustomOpDef({ns}::scale)>"
    assert getattr(torch.ops, ns).scale.overloads() == ["default"]
    assert scale(torch.empty(0)).shape == (0,)


def test_torch_ops_missing_names():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1

    with pytest.raises(AttributeError, match=f"'_OpNamespace' '{ns}' object has no attribute 'g'"):
        getattr(torch.ops, ns).g  # noqa: B018
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.f' has no overload name 'nope'"):
        getattr(torch.ops, ns).f.nope  # noqa: B018


def test_infer_schema_types_and_errors():
    def fn(x: Tensor, l: list[int], o: Tensor | None = None, s: str = "a", b: bool = True, n: int | None = None,
           ts: list[Tensor] | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
        return x, x

    assert torch.library.infer_schema(fn, mutates_args=()) == (
        '(Tensor x, SymInt[] l, Tensor? o=None, str s="a", bool b=True, SymInt? n=None, Tensor[]? ts=None) -> '
        "(Tensor, Tensor)"
    )

    def mut(x: Tensor, y: Tensor) -> None:
        y.add_(x)

    assert torch.library.infer_schema(mut, mutates_args={"y"}) == "(Tensor x, Tensor(a1!) y) -> ()"
    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        torch.library.custom_op(f"{_ns()}::g", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError, match="No return type annotation was provided"):

        @torch.library.custom_op(f"{_ns()}::g", mutates_args=())
        def g(x: Tensor):
            return x

    with pytest.raises(ValueError, match=r"\{'zz'\} in mutates_args were not found"):

        @torch.library.custom_op(f"{_ns()}::h", mutates_args=("zz",))
        def h(x: Tensor) -> Tensor:
            return x

    with pytest.raises(ValueError, match="Parameter d has unsupported type <class 'dict'>"):

        @torch.library.custom_op(f"{_ns()}::k", mutates_args=())
        def k(x: Tensor, d: dict) -> Tensor:
            return x


def test_mutating_op_writes_its_argument():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::acc", mutates_args={"y"})
    def acc(x: Tensor, y: Tensor) -> None:
        y.add_(x)

    y = torch.zeros(3)
    assert acc(torch.ones(3), y) is None
    assert y.tolist() == [1.0, 1.0, 1.0]
    assert str(getattr(torch.ops, ns).acc.default._schema) == f"{ns}::acc(Tensor x, Tensor(a1!) y) -> ()"


def test_register_autograd_gradcheck_and_missing_formula():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::cube", mutates_args=())
    def cube(x: Tensor, k: float) -> Tensor:
        return x * x * x * k

    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * ctx.k * g, None

    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=f"Trying to backward through {ns}.cube.default but no autograd formula"
    ):
        cube(x, 2.0).sum().backward()
    cube.register_autograd(backward, setup_context=setup)
    assert torch.autograd.gradcheck(lambda t: cube(t, 2.0), (x,))
    x.grad = None
    cube(x, 1.5).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4.5 * x.detach().numpy() ** 2)
    with torch.no_grad():
        assert cube(x, 1.0).grad_fn is None


def test_register_kernel_per_device_and_fake_on_meta():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::d", mutates_args=(), device_types="cpu")
    def d(x: Tensor) -> Tensor:
        return x + 1

    assert d(torch.zeros(2)).tolist() == [1.0, 1.0]
    with pytest.raises(
        NotImplementedError, match=f"Could not run '{ns}::d' with arguments from the 'Meta' backend"
    ):
        d(torch.empty(2, device="meta"))

    @d.register_fake
    def _(x):
        return torch.empty_like(x)

    out = d(torch.empty(2, 3, device="meta"))
    assert out.device.type == "meta" and out.shape == (2, 3)


def test_library_define_impl_and_errors():
    ns = _ns()
    lib = torch.library.Library(ns, "DEF")
    try:
        assert lib.define("bar(Tensor x, int n=1) -> Tensor") == "bar"
        op = getattr(torch.ops, ns).bar
        assert str(op.default._schema) == f"{ns}::bar(Tensor x, int n=1) -> Tensor"
        with pytest.raises(
            NotImplementedError, match=f"Could not run '{ns}::bar' with arguments from the 'CPU'"
        ):
            op(torch.ones(2))
        lib.impl("bar", lambda x, n=1: x + n, "CPU")
        assert op(torch.ones(2), 2).tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError, match="with the same name and overload name multiple times"):
            lib.define("bar(Tensor x) -> Tensor")
        with pytest.raises(
            RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}"
        ):
            torch.library.Library(ns, "DEF")
        with pytest.raises(
            RuntimeError, match=r"expected at most 2 argument\(s\) but received 3 argument\(s\)"
        ):
            op(torch.ones(1), 1, 2)
        with pytest.raises(
            RuntimeError,
            match="Expected a value of type 'Tensor' for argument 'x' but instead found type 'int'",
        ):
            op(5)
        with pytest.raises(RuntimeError, match="is missing value for argument 'x'"):
            op()
        lib.define("bar.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
        assert op.overloads() == ["default", "out"]
        assert str(op.out._schema) == f"{ns}::bar.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"
    finally:
        lib._destroy()
    with pytest.raises(ValueError, match="Unsupported kind: BAD"):
        torch.library.Library(ns, "BAD")
    with pytest.raises(
        RuntimeError, match="Only a single TORCH_LIBRARY can be used to register the namespace aten"
    ):
        torch.library.Library("aten", "DEF")


def test_library_fragment_impl_decorator_and_functional_api():
    ns = _ns()
    lib = torch.library.Library(ns, "FRAGMENT")
    lib.define("neg(Tensor x) -> Tensor")

    @torch.library.impl(lib, "neg", "CPU")
    def neg(x):
        return -x

    assert getattr(torch.ops, ns).neg(torch.ones(1)).tolist() == [-1.0]
    with pytest.raises(
        RuntimeError, match=r"Explicitly provided namespace \(other\) in schema string does not match"
    ):
        lib.define("other::zz(Tensor x) -> Tensor")
    ns2 = _ns()
    torch.library.define(f"{ns2}::k", "(Tensor x, Scalar s) -> Tensor")
    torch.library.impl(f"{ns2}::k", "cpu")(lambda x, s: x * s)
    assert getattr(torch.ops, ns2).k(torch.ones(2), 3).tolist() == [3.0, 3.0]
    # a CompositeImplicitAutograd kernel is plain code: autograd goes through it
    torch.library.define(f"{ns2}::sq", "(Tensor x) -> Tensor")
    torch.library.impl(f"{ns2}::sq", "CompositeImplicitAutograd")(lambda x: x * x)
    x = torch.tensor([3.0], requires_grad=True)
    getattr(torch.ops, ns2).sq(x).backward()
    assert x.grad.tolist() == [6.0]
    torch.library.register_autograd(f"{ns2}::k", lambda ctx, g: (g * ctx.s, None),
                                    setup_context=lambda ctx, inputs, out: setattr(ctx, "s", inputs[1]))  # fmt: skip
    y = torch.ones(2, requires_grad=True)
    getattr(torch.ops, ns2).k(y, 4).sum().backward()
    assert y.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="operator nonexist::op does not exist"):
        torch.library.register_fake("nonexist::op")(lambda x: x)


@pytest.mark.parametrize(
    "schema, words",
    [
        (
            "baz(Tensor x -> Tensor",
            "expected ) but found 'arrow' here:\nbaz(Tensor x -> Tensor\n             ~~ <--- HERE",
        ),
        ("baz(Tansor x) -> Tensor", "unknown type specifier. Common valid schema types include Tensor"),
    ],
)
def test_schema_parse_errors(schema, words):
    lib = torch.library.Library(_ns(), "FRAGMENT")
    with pytest.raises(RuntimeError) as e:
        lib.define(schema)
    assert words in str(e.value)


def test_schema_parsing_types():
    from minitorch._library.schema import parse_schema

    text = ("ns::f.ov(Tensor(a!) self, Tensor? w, Tensor[] ts, SymInt[2] k=1, int[] d=[1, 2], float eps=1e-05, "
            'bool b=False, str mode="x", Scalar alpha=1, *, ScalarType? dtype=None) -> (Tensor(a!), Tensor)')  # fmt: skip
    s = parse_schema(text)
    assert s.name == "ns::f" and s.overload_name == "ov"
    assert [a.type for a in s.arguments] == ["Tensor", "Tensor?", "Tensor[]", "SymInt[2]", "int[]", "float", "bool",
                                             "str", "Scalar", "ScalarType?"]  # fmt: skip
    assert [a.default_value for a in s.arguments[3:]] == [[1], [1, 2], 1e-05, False, "x", 1, None]
    assert s.arguments[0].is_write and s.arguments[-1].kwarg_only and s.is_mutable
    assert str(s) == text.replace("1e-05", "1.0000000000000001e-05")  # a double printed as PyTorch does


def test_custom_op_under_fx_compile_and_jit():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::sq", mutates_args=())
    def sq(x: Tensor) -> Tensor:
        return x * x

    gm = torch.fx.symbolic_trace(lambda x: sq(x) + 1)
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert calls[0].target is getattr(torch.ops, ns).sq.default
    assert f"torch.ops.{ns}.sq.default(x)" in gm.code
    x = torch.tensor([1.0, 2.0, -3.0])
    assert gm(x).tolist() == [2.0, 5.0, 10.0]
    assert torch.compile(lambda t: sq(t).sin())(x).tolist() == pytest.approx(np.sin(x.numpy() ** 2).tolist())


def test_aten_namespace_maps_to_torch_functions():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    np.testing.assert_allclose(torch.ops.aten.mm.default(a, b).numpy(), (a @ b).numpy(), rtol=1e-6)
    np.testing.assert_allclose(torch.ops.aten.add.Tensor(a, a).numpy(), (a + a).numpy())


def test_opcheck():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::good", mutates_args=())
    def good(x: Tensor) -> Tensor:
        return x.clone()

    good.register_fake(lambda x: torch.empty_like(x))
    ok = {
        k: "SUCCESS"
        for k in ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
    }
    assert torch.library.opcheck(good, (torch.randn(3, requires_grad=True),)) == ok
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        torch.library.opcheck(good, (torch.randn(3),), test_utils="test_nothing")

    @torch.library.custom_op(f"{ns}::alias", mutates_args=())
    def alias(x: Tensor) -> Tensor:
        return x

    with pytest.raises(Exception, match="test_schema failed with The output of this custom operator") as e:
        torch.library.opcheck(alias, (torch.randn(3),))
    assert type(e.value).__name__ == "OpCheckError"

    @torch.library.custom_op(f"{ns}::sneaky", mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.add_(1)
        return x + 1

    with pytest.raises(Exception, match="mutated argument 'x'"):
        torch.library.opcheck(sneaky, (torch.randn(3),))

    # a Library op whose CPU kernel lets autograd through, without an autograd registration
    lib = torch.library.Library(ns, "FRAGMENT")
    lib.define("leaky(Tensor x) -> Tensor")
    lib.impl("leaky", lambda x: x * 2, "CPU")
    res = torch.library.opcheck(
        getattr(torch.ops, ns).leaky.default, (torch.randn(3, requires_grad=True),), raise_exception=False
    )
    assert res["test_schema"] == "SUCCESS" and isinstance(res["test_autograd_registration"], AssertionError)
    assert "does not have an autograd kernel defined at an autograd key" in str(
        res["test_autograd_registration"]
    )


def test_schemas_match_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = (
        "import json, torch\n"
        "from torch import Tensor\n"
        "out = []\n"
        "def a(x: Tensor, y: Tensor, n: int = 3, f: float = 0.5, l: list[int] | None = None, s: str = 'q') -> Tensor: ...\n"
        "def b(x: Tensor, out: Tensor, *, flag: bool = False) -> tuple[Tensor, Tensor]: ...\n"
        "def c(xs: list[Tensor], o: Tensor | None) -> None: ...\n"
        "out.append(torch.library.infer_schema(a, mutates_args=()))\n"
        "out.append(torch.library.infer_schema(b, mutates_args={'out'}))\n"
        "out.append(torch.library.infer_schema(c, mutates_args='unknown'))\n"
        "lib = torch.library.Library('tlibo', 'FRAGMENT')\n"
        "lib.define('g(Tensor x, float eps=1e-05, int[2] k=1, *, bool b=False) -> (Tensor, Tensor)')\n"
        "out.append(str(torch.ops.tlibo.g.default._schema))\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run([py, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    expected = json.loads(res.stdout.strip().splitlines()[-1])

    def a(
        x: Tensor, y: Tensor, n: int = 3, f: float = 0.5, l: list[int] | None = None, s: str = "q"
    ) -> Tensor: ...
    def b(x: Tensor, out: Tensor, *, flag: bool = False) -> tuple[Tensor, Tensor]: ...
    def c(xs: list[Tensor], o: Tensor | None) -> None: ...

    ours = [
        torch.library.infer_schema(a, mutates_args=()),
        torch.library.infer_schema(b, mutates_args={"out"}),
        torch.library.infer_schema(c, mutates_args="unknown"),
    ]
    ns = _ns()
    lib = torch.library.Library(ns, "FRAGMENT")
    lib.define("g(Tensor x, float eps=1e-05, int[2] k=1, *, bool b=False) -> (Tensor, Tensor)")
    ours.append(str(getattr(torch.ops, ns).g.default._schema).replace(ns, "tlibo"))
    assert ours == expected


def test_impl_abstract_is_register_fake():
    ns = _ns()

    @torch.library.custom_op(f"{ns}::f", mutates_args=(), device_types="cpu")
    def f(x: Tensor) -> Tensor:
        return x + 1

    with pytest.warns(FutureWarning, match="was renamed to `torch.library.register_fake`"):
        torch.library.impl_abstract(f"{ns}::f")(lambda x: torch.empty_like(x))
    assert f(torch.empty(4, device="meta")).shape == (4,)
    with pytest.raises(NotImplementedError, match="fallthrough_kernel"):
        torch.library.Library(ns, "FRAGMENT").impl("f", torch.library.fallthrough_kernel, "CPU")
