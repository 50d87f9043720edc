"""The schema's overloaded funcs (`func name.tag(...)` rows): the generator's grammar and its refusals, the
bindings' choice among the rows (arange, eye) and PyTorch's TypeErrors when no row takes a call."""

import re

import pytest

import minitorch as torch
from tests.ops.op_schema import BY_NAME, gen_ops
from tests.ops.op_schema import schema_error as _err

FACTORY_KW = "ScalarType? dtype=None, Device? device=None, bool requires_grad=False"


def test_overload_rows_are_one_op_tried_in_order():
    (op,) = gen_ops.parse(
        "func foo(Tensor self, int n) -> Tensor\n  variants: method\n"
        "func foo.pair(Tensor self, int n, int m) -> Tensor\n  call: foo2(self, n, m)\n",
        "s",
    )
    assert [o.overload for o in op.overloads] == [None, "pair"]
    assert op.overloads[1].variants == ("method",) and op.overloads[1].call == "foo2(self, n, m)"
    text = gen_ops.bind_funcs_cpp([op])
    # one m.def and one cls.def per row, in the rows' order, with strict casters (a refusal tries the next)
    assert [m.start() for m in re.finditer(r'm\.def\("foo"', text)] == sorted(
        m.start() for m in re.finditer(r'm\.def\("foo"', text)
    )
    assert text.count('m.def("foo"') == 2 and text.count('cls.def("foo"') == 2
    assert text.index("return foo(self, n)") < text.index("return foo2(self, n, m)")
    assert "StrictInt n" in text and "StrictInt m" in text and "int_arg(" not in text.split("init_schema")[1]
    assert (
        gen_ops.declared(op)
        == "foo(Tensor self, int n) -> Tensor | foo.pair(Tensor self, int n, int m) -> Tensor"
    )


def test_generator_rejects_malformed_overloads():
    head = "func foo(Tensor self, int n) -> Tensor\n  variants: none\n"
    assert "an overload row sets only call; 'variants:' is its first row's" in _err(
        head + "func foo.b(Tensor self) -> Tensor\n  variants: none\n"
    )
    assert "overload tag 'b' twice" in _err(
        head + "func foo.b(Tensor self) -> Tensor\nfunc foo.b(Tensor self) -> Tensor\n"
    )
    assert "overloads return the same" in _err(
        head + "func foo.b(Tensor self) -> (Tensor values, Tensor indices)\n"
    )
    assert "the method's overloads take 'Tensor self'" in _err(
        "func foo(Tensor self) -> Tensor\nfunc foo.n(int n) -> Tensor\n"
    )
    # rows of one name that are not consecutive overloads are two ops of one name
    assert "already used" in _err(
        head + "func bar(Tensor self) -> Tensor\nfunc foo.b(Tensor self) -> Tensor\n"
    )
    assert "already used" in _err(head + "func foo(Tensor self) -> Tensor\n")


def test_the_schema_declares_the_overloaded_factories():
    assert [o.overload for o in BY_NAME["arange"].overloads] == [None, "start_step"]
    assert [o.overload for o in BY_NAME["eye"].overloads] == [None, "m"]
    assert FACTORY_KW in BY_NAME["arange"].overloads[1].signature


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (lambda: torch.arange(4), [0, 1, 2, 3]),
        (lambda: torch.arange(end=3), [0, 1, 2]),
        (lambda: torch.arange(2, 5), [2, 3, 4]),
        (lambda: torch.arange(start=1, end=4), [1, 2, 3]),
        (lambda: torch.arange(1, 8, step=3), [1, 4, 7]),
        (lambda: torch.arange(0, 1, 0.25), [0.0, 0.25, 0.5, 0.75]),
        (lambda: torch.arange(torch.tensor(3)), [0, 1, 2]),
        (lambda: torch.eye(2), [[1.0, 0.0], [0.0, 1.0]]),
        (lambda: torch.eye(1, 3), [[1.0, 0.0, 0.0]]),
        (lambda: torch.eye(n=1, m=2), [[1.0, 0.0]]),
        (lambda: torch.eye(2, dtype=torch.float64, m=1), [[1.0], [0.0]]),
    ],
)
def test_the_binding_picks_the_row_that_takes_the_call(call, want):
    assert call().tolist() == want


def test_integer_step_default_keeps_an_integer_result():
    # step=1 is a Python int (a float default would make arange(2, 5) float32, as it is not in PyTorch)
    assert torch.arange(2, 5).dtype == torch.int64 and torch.arange(2.0, 5).dtype == torch.float32
    out = torch.zeros(1, dtype=torch.int32)
    assert torch.arange(3, out=out) is out and out.dtype == torch.int32 and out.tolist() == [0, 1, 2]


COMBINATION = r"^{}\(\) received an invalid combination of arguments - got \({}\), but expected one of:\n"


@pytest.mark.parametrize(
    ("call", "fn", "got"),
    [
        (lambda: torch.arange(), "arange", ""),
        (lambda: torch.arange(1, step=2), "arange", "int, step=int"),
        (lambda: torch.arange(1, 2, 3, 4), "arange", "int, int, int, int"),
        (lambda: torch.arange(3, foo=1), "arange", "int, foo=int"),
        (lambda: torch.eye(), "eye", ""),
        (lambda: torch.eye(2, None), "eye", "int, NoneType"),
        (lambda: torch.eye(2, 3, 4), "eye", "int, int, int"),
    ],
)
def test_no_row_takes_the_call(call, fn, got):
    """PyTorch's TypeError: its first line is PyTorch 2.15's for each of these calls."""
    with pytest.raises(TypeError) as e:
        call()
    assert re.match(COMBINATION.format(fn, re.escape(got)), str(e.value)), str(e.value)
    assert str(e.value).count("\n * (") == 2  # both rows listed


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: torch.arange("a"), "arange(): argument 'end' (position 1) must be Number, not str"),
        (lambda: torch.arange(end="a"), "arange(): argument 'end' must be Number, not str"),
        (lambda: torch.full((2,), "a"), "full(): argument 'fill_value' (position 2) must be Number, not str"),
        (
            lambda: torch.scalar_tensor(torch.zeros(2)),
            "scalar_tensor(): argument 's' (position 1) must be Number, not Tensor",
        ),
        (
            lambda: torch.scalar_tensor(1, out=torch.zeros(())),
            "scalar_tensor() got an unexpected keyword argument 'out'",
        ),
        (
            lambda: torch.polygamma(torch.zeros(2), 1),
            "polygamma(): argument 'n' (position 1) must be int, not Tensor",
        ),
        (
            lambda: torch.zeros(2).polygamma(1.0),
            "polygamma(): argument 'n' (position 1) must be int, not float",
        ),
        (lambda: torch.eye(2.0), "eye(): argument 'n' (position 1) must be int, not float"),
    ],
)
def test_one_row_refuses_an_argument_in_pytorchs_words(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_polygamma_rows_put_the_tensor_second():
    x = torch.tensor([1.0, 2.0])
    want = torch.polygamma(1, x)
    assert torch.polygamma(n=1, input=x).tolist() == want.tolist() == x.polygamma(1).tolist()
    y = x.clone()
    assert y.polygamma_(1) is y and y.tolist() == want.tolist()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).polygamma_(1)


def test_randperm_writes_out_in_outs_dtype():
    out = torch.zeros(1)
    torch.manual_seed(0)
    assert torch.randperm(4, out=out) is out and out.dtype == torch.float32
    assert sorted(out.tolist()) == [0.0, 1.0, 2.0, 3.0]


def test_method_only_rows_bind_the_method_alone():
    (op,) = gen_ops.parse(
        "func new_foo(Tensor self, int... size, *, ScalarType? dtype=None) -> Tensor\n"
        "  call: foo_of(self, size, dtype)\n  variants: method_only\n",
        "s",
    )
    assert op.variants == ("method",) and not op.function
    text = gen_ops.bind_funcs_cpp([op])
    assert 'm.def("new_foo"' not in text and text.count('cls.def("new_foo"') == 1
    # the sizes follow self: *size, then size= (keyword-only after it, as all that follows)
    assert "const Tensor& self, py::args size_args, py::handle size_obj" in text
    assert 'factory_size("new_foo", size_args, size_obj)' in text
    assert 'py::arg("size") = py::none(), py::arg("dtype")' in text


def test_in_place_method_rows_return_self():
    # PyTorch's Tensor(a!) self: the method writes into it and returns the very object
    (op,) = gen_ops.parse("func foo_(Tensor(a!) self, float p=0.5) -> Tensor\n  variants: method_only\n", "s")
    text = gen_ops.bind_funcs_cpp([op])
    assert "py::object self_obj" in text and "return self_obj;" in text and "foo_(self, p);" in text


def test_an_overloaded_size_is_a_sequence_caster():
    (op,) = gen_ops.parse(
        "func foo(SymInt high, SymInt[] size) -> Tensor\n  variants: none\n"
        "func foo.low(SymInt low, SymInt high, SymInt[] size) -> Tensor\n",
        "s",
    )
    text = gen_ops.bind_funcs_cpp([op])
    assert text.count("SizeArg size_obj") == 2 and "DimVector size = symints_arg(size_obj, " in text


def test_generator_rejects_malformed_method_only_rows():
    assert "'method_only' stands alone" in _err(
        "func foo(Tensor self) -> Tensor\n  variants: method_only out\n"
    )
    assert "a method or in-place form needs a 'Tensor self' argument" in _err(
        "func foo(int n, Tensor x) -> Tensor\n  variants: method_only\n"
    )
    assert "'int...' is the first argument or follows 'Tensor self'" in _err(
        "func foo(Tensor self, int n, int... size) -> Tensor\n  variants: method_only\n"
    )
    assert "'Tensor(a!)' is an in-place method's first argument" in _err(
        "func foo(Tensor self, Tensor(a!) other) -> Tensor\n  variants: method_only\n"
    )
    assert "a 'Tensor(a!) self' row is a method_only row" in _err("func foo_(Tensor(a!) self) -> Tensor\n")


def test_a_method_only_row_may_take_its_self_second():
    # Tensor.where(condition, other) is where(condition, self, other): the method's tensor stands second
    op = BY_NAME["where"]
    assert not op.function and [p.name for p in op.params] == ["condition", "self", "other"]
    x = torch.tensor([1.0, -2.0, 3.0])
    assert x.where(x > 0, 0.0).tolist() == [1.0, 0.0, 3.0]
    assert x.where(condition=x < 0, other=torch.ones(3)).tolist() == [1.0, -2.0, 1.0]
    assert not hasattr(torch._C, "where")  # torch.where is Python's (where(condition) is nonzero's)


def test_new_factories_are_method_only_rows():
    for name in ("new_empty", "new_zeros", "new_ones", "new_full"):
        assert not BY_NAME[name].function and BY_NAME[name].variants == ("method",), name
        assert not hasattr(torch._C, name) and not hasattr(torch, name), name
    x = torch.zeros(2, dtype=torch.float64)
    assert x.new_zeros(2, 3).shape == (2, 3) and x.new_ones(size=[1]).tolist() == [1.0]
    assert x.new_full((2,), 3).dtype == torch.float64 and x.new_empty(0, dtype=torch.int8).dtype == torch.int8


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: torch.randint(0, 3),
            "randint(): argument 'size' (position 2) must be tuple of ints, not int",
        ),
        (lambda: torch.randint(5, size=3), "randint(): argument 'size' must be tuple of ints, not int"),
        (lambda: torch.randint(True, (2,)), "randint(): argument 'high' (position 1) must be int, not bool"),
    ],
)
def test_randint_rows_refuse_in_pytorchs_words(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_randint_rows_take_pytorchs_keyword_spellings():
    for call in (
        lambda: torch.randint(low=2, high=5, size=(50,)),
        lambda: torch.randint(2, high=5, size=(50,)),
        lambda: torch.randint(2, 5, size=[50]),
    ):
        r = call()
        assert r.dtype == torch.int64 and r.shape == (50,) and 2 <= r.min().item() and r.max().item() < 5
    assert torch.randint(high=3, size=(4,)).max().item() < 3
    out = torch.zeros(1, dtype=torch.int16)
    assert torch.randint(5, (3,), out=out) is out and out.dtype == torch.int16 and out.shape == (3,)
    with pytest.raises(TypeError, match="invalid combination of arguments - got \\(int\\)"):
        torch.randint(5)


def test_an_overloads_tensor_and_scalar_are_casters():
    (op,) = gen_ops.parse(
        "func foo_.t(Tensor(a!) self, Tensor v) -> Tensor\n  variants: method_only\n"
        "func foo_.s(Tensor(a!) self, Scalar v) -> Tensor\n",
        "s",
    )
    text = gen_ops.bind_funcs_cpp([op])
    assert "TensorArg v_obj" in text and "Tensor v = v_obj.h.cast<Tensor>();" in text
    assert "ScalarArg v_obj" in text and text.count("return self_obj;") == 2


def test_fill_rows():
    y = torch.zeros(3)
    assert y.fill_(2) is y and y.tolist() == [2.0] * 3
    assert y.fill_(value=torch.tensor(1.5, dtype=torch.float64)) is y and y.tolist() == [1.5] * 3
    with pytest.raises(
        RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1"
    ):
        y.fill_(torch.tensor([1.0]))
    # a value requiring grad receives the sum of the filled tensor's gradient, as PyTorch's
    v = torch.tensor(3.0, requires_grad=True)
    z = torch.zeros(4).fill_(v)
    (z * torch.arange(4.0)).sum().backward()
    assert z.tolist() == [3.0] * 4 and v.grad.item() == 6.0
    assert y.zero_() is y and y.tolist() == [0.0] * 3


def test_random_fill_rows():
    y = torch.zeros(2000)
    assert y.random_(3, 6) is y and set(y.tolist()) == {3.0, 4.0, 5.0}
    assert set(y.random_(to=2).tolist()) == {0.0, 1.0}
    # random_(from, None): from up to the dtype's end, as PyTorch's
    assert set(torch.zeros(2000, dtype=torch.int8).random_(120, None).tolist()) == set(range(120, 128))
    assert set(torch.zeros(2000, dtype=torch.bool).random_().tolist()) == {False, True}
    g = torch.Generator().manual_seed(5)
    a = torch.zeros(5).uniform_(2, 3, generator=g)
    g.manual_seed(5)
    assert torch.zeros(5).uniform_(2, 3, generator=g).tolist() == a.tolist() and 2 <= a.min().item() < 3
    assert torch.zeros(5).normal_(mean=4.0, std=0.0).tolist() == [4.0] * 5


def test_bernoulli_rows():
    p = torch.tensor([0.0, 1.0, 0.0, 1.0])
    y = torch.full((3, 4), 7.0)
    assert y.bernoulli_(p) is y and y.tolist() == [[0.0, 1.0, 0.0, 1.0]] * 3  # p broadcast over y
    assert torch.zeros(4, dtype=torch.int64).bernoulli_(p=p).tolist() == [0, 1, 0, 1]
    assert set(torch.zeros(1000).bernoulli_(0.5).tolist()) == {0.0, 1.0}
    assert torch.zeros(3).bernoulli_(1).tolist() == [1.0] * 3
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
        torch.zeros(2).bernoulli_(torch.tensor([0.5, 1.5]))


def test_empty_row_keeps_its_memory_format():
    assert torch.empty(1, 2, 3, 4, memory_format=torch.channels_last).stride() == (24, 1, 8, 2)
    assert torch.empty((1, 2, 3, 4)).stride() == (24, 12, 4, 1)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        torch.empty(2, memory_format=torch.preserve_format)
    out = torch.zeros(0, dtype=torch.int16)
    assert torch.empty(2, 3, out=out) is out and out.shape == (2, 3) and out.dtype == torch.int16
