"""The op schema (csrc/ops/ops.schema): the built extension carries exactly what the schema declares (a stale
build or a hand-written list that drifted fails here), every declared spelling and form is bound and nothing
undeclared is, and the generator rejects malformed schemas with a message that says what to write."""

import pytest

import minitorch as torch
from tests import op_schema
from tests.op_schema import OPS, gen_ops

VARIANTS = gen_ops.VARIANTS


def test_extension_carries_the_schema():
    """_C._op_schema() is the table compiled from the schema; it must equal the schema file as it is now."""
    built = {row[1]: row for row in torch._C._op_schema()}
    assert list(built) == [op.name for op in OPS], "rebuild: the extension was compiled from another schema"
    for op in OPS:
        kind, _, functor, rule, variants, aliases, autocast, grad = built[op.name]
        assert (kind, functor, rule) == (op.kind, op.functor, op.rule), op.name
        assert variants.split() == list(op.variants), op.name
        assert tuple(autocast.split()) == (op.autocast or ()), op.name
        assert (grad or None) == op.grad, op.name
        assert [a.split("[")[0] for a in gen_ops.split_aliases(aliases)] == [n for n, _ in op.aliases], (
            op.name
        )


def _same(a, b):
    return a.dtype == b.dtype and repr(a.tolist()) == repr(b.tolist())  # nan where nan


def _spellings():
    for op in OPS:
        for name, variants in op.spellings():
            yield pytest.param(op, name, variants, id=name)


@pytest.mark.parametrize(("op", "name", "variants"), list(_spellings()))
def test_every_spelling_has_exactly_its_forms(op, name, variants):
    assert callable(getattr(torch._C, name)), f"minitorch._C.{name} is not bound"
    assert hasattr(torch.Tensor, name) == ("method" in variants), f"Tensor.{name}"
    assert hasattr(torch.Tensor, name + "_") == ("inplace" in variants), f"Tensor.{name}_"
    assert hasattr(torch._C, name + "_") == ("torch_inplace" in variants), f"minitorch._C.{name}_"
    if "torch_inplace" in variants:
        assert getattr(torch, name + "_") is getattr(torch._C, name + "_")
    # the same op under every spelling: compare on values inside every op's domain
    x = torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64)
    if op.name.startswith("bitwise"):
        x = torch.tensor([1, 2, 6])
    args = (x,) if op.kind == "unary" else (x, x + 1)
    want = getattr(torch._C, op.name)(*args)
    assert _same(getattr(torch, name)(*args), want)
    if "out" in variants:
        out = torch.empty_like(want)
        assert getattr(torch, name)(*args, out=out) is out and _same(out, want)
    else:
        with pytest.raises(TypeError):
            getattr(torch, name)(*args, out=torch.empty_like(want))


def test_torch_level_inplace_writes_into_its_input_and_returns_it():
    x = torch.tensor([0.5, 4.0, 9.0])
    assert torch.sqrt_(x) is x and torch.equal(x, torch.tensor([0.5**0.5, 2.0, 3.0]))
    y = torch.tensor([-1.5, 2.0])
    assert torch.negative_(y) is y and y.tolist() == [1.5, -2.0]
    with pytest.raises(TypeError):
        torch.sqrt_(4.0)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.sqrt_(torch.tensor([4]))


def test_alias_inplace_methods_of_hand_bound_ops():
    """subtract_/divide_/true_divide_ come from the schema's aliases of sub and div, with their keywords."""
    x = torch.tensor([7.0, -7.0])
    assert x.subtract_(torch.tensor([1.0, 1.0]), alpha=2) is x and x.tolist() == [5.0, -9.0]
    assert x.divide_(2, rounding_mode="floor") is x and x.tolist() == [2.0, -5.0]
    assert x.true_divide_(4) is x and x.tolist() == [0.5, -1.25]
    out = torch.empty(2)
    assert torch.subtract(torch.ones(2), torch.ones(2), alpha=3, out=out) is out and out.tolist() == [
        -2.0,
        -2.0,
    ]


def test_autocast_rows_come_from_the_schema():
    policy = {name: (cuda, cpu) for name, cuda, cpu in torch._C._autocast_policy()}
    for op in OPS:
        if op.autocast:
            assert policy[op.name] == tuple(p.lower() for p in op.autocast), op.name
        else:
            assert op.name not in policy, op.name


def test_saved_tensor_follows_the_formula():
    """A formula that reads only `result` saves the result: an in-place change of the input afterwards is
    harmless; one that reads `self` saves the input, and changing it must fail backward."""
    x = torch.tensor([0.3, 0.6], dtype=torch.float64, requires_grad=True)
    a = x * 1
    y = a.exp()  # grad: mul(grad, result)
    a.add_(1)
    y.sum().backward()
    assert torch.allclose(x.grad, torch.exp(torch.tensor([0.3, 0.6], dtype=torch.float64)))
    b = x * 1
    z = b.sin()  # grad: mul(grad, mt::cos(self))
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    assert op_schema.BY_NAME["exp"].saves_result() and not op_schema.BY_NAME["sin"].saves_result()


def _err(text):
    with pytest.raises(gen_ops.SchemaError) as e:
        gen_ops.parse(text, "ops.schema")
    return str(e.value)


def test_generator_rejects_malformed_schemas():
    assert "ops.schema:1: expected '<kind> <name>'" in _err("ternary lerp\n")
    assert "needs 'functor:'" in _err("unary foo\n  dtype: same\n  grad: none\n")
    assert "unknown key 'dtyp'" in _err("unary foo\n  functor: Foo\n  dtyp: same\n")
    assert "dtype rule 'arith' is not one of same, float, bool" in _err(
        "unary foo\n  functor: Foo\n  dtype: arith\n  grad: none\n"
    )
    assert "unknown variant 'outt'" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  variants: method outt\n  grad: none\n"
    )
    assert "sets 'dtype' twice" in _err("unary foo\n  functor: Foo\n  dtype: same\n  dtype: same\n")
    assert "already used by 'foo'" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n"
        "unary bar\n  functor: Bar\n  dtype: same\n  aliases: foo\n  grad: none\n"
    )
    assert "reads self or result, not both" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: mul(self, result)\n"
    )
    assert "autocast takes two policies" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  autocast: fp32\n  grad: none\n"
    )
    assert "needs 'grad:'" in _err("unary foo\n  functor: Foo\n  dtype: same\n")


def test_generated_text_is_deterministic_and_complete(tmp_path):
    """Two runs write the same bytes (ccache and Ninja rely on it); every unary op gets a derivative case."""
    first = gen_ops.outputs(OPS)
    assert first == gen_ops.outputs(gen_ops.load())
    gen_ops.write(str(tmp_path), OPS)
    for name, text in first.items():
        assert (tmp_path / "generated" / name).read_text() == text
    grads = first["unary_grad.inc"]
    for op in OPS:
        if op.kind == "unary":
            assert f"case UnaryOp::{op.name}:" in grads, op.name
    assert "default:" not in grads.split("bool unary_saves_input")[0], "a default: would hide a missing case"
