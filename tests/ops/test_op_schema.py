"""The op schema (csrc/ops/ops.schema): the built extension carries exactly what the schema declares (a stale
build or a hand-written list that drifted fails here), every declared spelling and form is bound and nothing
undeclared is, and the generator rejects malformed schemas with a message that says what to write."""

import ast
import re

import numpy as np
import pytest

import minitorch as torch
from tests.ops import op_schema
from tests.ops.op_schema import OPS, gen_ops
from tests.ops.op_schema import schema_error as _err

VARIANTS = gen_ops.VARIANTS


def test_extension_carries_the_schema():
    """_C._op_schema() is the table compiled from the schema; it must equal the schema file as it is now."""
    built = {row[1]: row for row in torch._C._op_schema()}
    assert list(built) == [op.name for op in OPS], "rebuild: the extension was compiled from another schema"
    for op in OPS:
        kind, _, functor, rule, variants, aliases, autocast, grad, module = built[op.name]
        assert (kind, functor, rule) == (op.kind, op.functor or op.call, op.rule or gen_ops.declared(op)), (
            op.name
        )
        assert variants.split() == list(op.variants), op.name
        assert tuple(autocast.split()) == (op.autocast or ()), op.name
        assert (grad or None) == op.grad, op.name
        assert (module or None) == op.module, op.name
        assert [a.split("[")[0] for a in gen_ops.split_aliases(aliases)] == [n for n, _ in op.aliases], (
            op.name
        )


def _same(a, b):
    return a.dtype == b.dtype and repr(a.tolist()) == repr(b.tolist())  # nan where nan


def _spellings():
    for op in OPS:
        for name, variants in op.spellings():
            yield pytest.param(op, name, variants, id=name)


_CPP_METHOD = type(vars(torch.Tensor)["add"])  # how a method bound in C++ looks (Python adds others)


def _cpp_method(name):
    return isinstance(vars(torch.Tensor).get(name), _CPP_METHOD)


def _namespace(op):
    """Where a row's function is bound: minitorch._C, or the submodule a `module:` row names (_C._nn)."""
    return getattr(torch._C, "_" + op.module) if op.module else torch._C


def _has_out_overload(fn):
    # bind_out.cpp adds out= as one more pybind11 overload taking (*args, **kwargs) (an overloaded function's
    # first doc line is "name(*args, **kwargs)" too: its numbered signatures say which they are)
    doc = fn.__doc__ or ""
    lines = [ln for ln in doc.splitlines() if re.match(r"^\d+\. ", ln)] or doc.splitlines()[:1]
    return any("(*args, **kwargs)" in ln for ln in lines)


_NAMES = {name for op in OPS for name, _ in op.spellings()}


@pytest.mark.parametrize(("op", "name", "variants"), list(_spellings()))
def test_every_spelling_has_exactly_its_forms(op, name, variants):
    if not op.function:  # `variants: method_only`: Tensor.new_zeros, Tensor.fill_, and no function
        assert _cpp_method(name) and not hasattr(torch._C, name), name
        # (an in-place companion is its own method_only row: index_put and index_put_)
        assert not _cpp_method(name + "_") or name.endswith("_") or name + "_" in _NAMES, f"Tensor.{name}_"
        return
    fn = getattr(_namespace(op), name)
    assert callable(fn), f"{_namespace(op).__name__}.{name} is not bound"
    if op.module:  # the submodule's function alone: not minitorch._C's, no method (variants are refused)
        assert not hasattr(torch._C, name) and not _cpp_method(name), name
        assert not _has_out_overload(fn), name
        return
    assert _cpp_method(name) == ("method" in variants), f"Tensor.{name}"
    assert _cpp_method(name + "_") == ("inplace" in variants), f"Tensor.{name}_"
    assert hasattr(torch._C, name + "_") == ("torch_inplace" in variants), f"minitorch._C.{name}_"
    assert _has_out_overload(fn) == ("out" in variants), f"{name}(out=)"
    if "torch_inplace" in variants:
        assert getattr(torch, name + "_") is getattr(torch._C, name + "_")
    if op.kind == "func":
        return  # their calls are tested by their families' tests (test_sort.py, test_reduce.py, test_out.py)
    # the same op under every spelling: compare on values inside every op's domain
    x = torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64)
    if op.name.startswith("bitwise"):
        x = torch.tensor([1, 2, 6])
    args = (x,) if op.kind == "unary" else (x, x + 1)
    want = getattr(torch._C, op.name)(*args)
    public = op_schema.function(name)
    assert _same(public(*args), want)
    if "out" in variants:
        out = torch.empty_like(want)
        assert public(*args, out=out) is out and _same(out, want)
    else:
        with pytest.raises(TypeError):
            public(*args, out=torch.empty_like(want))


def _overloads(fn, name):
    """How many signatures pybind11 holds for a bound function: a second m.def of the same name adds one."""
    return len(re.findall(rf"^\d+\. {name}\(", fn.__doc__ or "", flags=re.MULTILINE)) or 1


def _generated_names():
    """The Python names the generated bindings own: every spelling and in-place form of the schema's rows
    but the funcs' `binding: own` ones (bound by hand in csrc/python)."""
    for op in OPS:
        if op.own_binding:
            continue
        yield from ((op, name, variants) for name, variants in op.spellings())


def _other_classes(text):
    """The text of the `py::class_<X>(...).def(...)...;` chains of classes other than the Tensor's (ProcessGroup's
    gather and scatter are its own methods, not minitorch's or Tensor's)."""
    for m in re.finditer(r"py::class_<([\w:]+)", text):
        if m.group(1) in ("TensorImpl", "Tensor"):
            continue
        depth, i = 0, m.end()
        while i < len(text) and not (text[i] == ";" and depth == 0):
            depth += (text[i] in "([{") - (text[i] in ")]}")
            i += 1
        yield text[m.start() : i]


def _old_form(op, name):
    """1 where the spelling also has a second overload of its own: every `keyword: alpha` spelling has PyTorch's
    (Tensor input, Number other, Number alpha=1), which on the op's own name also reads the deprecated
    add(input, alpha, other) (`deprecated:`); `keyword: decimals` (round) its (Tensor input, *, int decimals)."""
    return int(op.keyword in ("alpha", "decimals") or (op.deprecated is not None and name == op.name))


def _hand_bound(text):
    """The names a binding source defines on the module or the Tensor class: .def("name", ...), and the names
    of a loop that defines each, `for (const char* n : {"mm", "matmul"}) { ... m.def(n, ...) ... }`."""
    for chain in list(_other_classes(text)):
        text = text.replace(chain, "")
    names = re.findall(r'\.def\(\s*"(\w+)"', text)
    for m in re.finditer(r"for \(const char\* (\w+) :\s*\{([^}]*)\}\)", text):
        body = text[m.end() : text.find("\n  }", m.end())]
        if re.search(rf"\.def\(\s*{m.group(1)}\b", body):
            names += re.findall(r'"(\w+)"', m.group(2))
    return names


def test_the_drift_check_sees_every_spelling_of_a_hand_binding():
    text = """
  m.def("foo", [](const Tensor& x) { return x; });
  for (const char* n : {"bar", "baz"}) {
    cls.def(n, [](const Tensor& x) { return x; });
  }
  for (const char* name : {"__add__", "qux"}) {
    MT_INTERNAL_ASSERT(py::hasattr(cls, name), name);
  }
"""
    assert sorted(_hand_bound(text)) == ["bar", "baz", "foo"]
    other = (
        'py::class_<Group>(d, "Group")\n  .def("gather", [](Group& g) { g.f(); })\n  .def("x", &Group::x);\n'
    )
    assert _hand_bound(other + text) == _hand_bound(text)
    # linalg's __torch_function__ fallbacks iterate the schema's list (MT_FUNC_TORCH_FUNCTION), no names of their own
    linalg = (op_schema.ROOT_PATH / "csrc" / "python" / "bind_linalg.cpp").read_text()
    assert "MT_FUNC_TORCH_FUNCTION" in linalg and not set(_hand_bound(linalg)) & {"mm", "matmul", "addmm"}


def test_no_hand_binding_duplicates_a_schema_row():
    """A schema row's names are bound once, by the generated bindings: a hand-written m.def/cls.def of the
    same name (left behind when a row moved to the schema, or written beside it) would add an overload that
    pybind11 may pick first. (A row without its binding fails test_every_spelling_has_exactly_its_forms.)"""
    assert _overloads(torch._C.eye, "eye") == 2  # the count works: eye(n) and eye(n, m)
    for op, name, variants in _generated_names():
        rows = len(op.overloads) or 1  # an overloaded func: one pybind11 overload per row
        old = _old_form(op, name)
        if op.function:
            # out=, `torch_function: fallback` (bind_linalg.cpp) and the deprecated add(input, alpha, other)
            # each add one overload
            extra = ("out" in variants) + op.torch_function_fallback + old
            assert _overloads(getattr(_namespace(op), name), name) == rows + extra, name
        for form, present in ((name, "method" in variants), (name + "_", "inplace" in variants)):
            if present:
                assert _overloads(vars(torch.Tensor)[form], form) == rows + old, f"Tensor.{form}"
    # and in the sources, where a duplicate bound under another module or class would not show above
    names = set()
    for _, name, variants in _generated_names():
        names |= {name, name + "_"} if "inplace" in variants or "torch_inplace" in variants else {name}
    hand = []
    for path in sorted((op_schema.ROOT_PATH / "csrc" / "python").glob("*.cpp")):
        hand += [f"{path.name}: {n}" for n in _hand_bound(path.read_text()) if n in names]
    assert not hand, (
        f"hand-written bindings of schema rows (delete them, or mark a func row 'binding: own'): {hand}"
    )


# The public names bound by hand without a schema row, by source file, each group with why: the Tensor's own
# machinery, process state and the storage's resize_ and set_, none of them ops of the surface (the ops, _C._nn's
# included, are rows). A new hand binding of a public name fails test_hand_bindings_are_declared_or_listed:
# declare it as a row (generated, or `binding: own <why>`), or list it here with its reason.
HAND_BOUND = {
    # the Tensor's own machinery (storage, devices, conversions, sizes), not ops of the surface
    "bind_tensor.cpp": {
        "clone", "contiguous", "copy_", "cpu", "cuda", "data_ptr", "dim", "element_size", "from_numpy",
        "get_device", "get_num_threads", "is_complex", "is_contiguous", "is_floating_point", "is_inference",
        "is_pinned", "item", "ndimension", "nelement", "numel", "numpy", "pin_memory", "record_stream",
        "requires_grad_", "set_num_threads", "size", "storage_offset", "stride", "to", "tolist", "type",
        "untyped_storage_nbytes",
    },
    # process state: grad mode, default dtype, seeds, matmul precision, backends
    "bind_autograd.cpp": {"is_grad_enabled", "is_inference_mode_enabled", "retain_grad"},
    "bind_common.cpp": {"can_cast", "get_default_dtype", "promote_types", "set_default_dtype"},
    "bind_factory.cpp": {"initial_seed", "manual_seed", "seed"},
    "bind_linalg.cpp": {"get_float32_matmul_precision", "set_float32_matmul_precision"},
    "bind_distributed.cpp": {"is_gloo_available", "is_nccl_available", "make_gloo_group", "make_nccl_group"},
    # resize_/resize_as_/set_/is_set_to: the storage's own methods (Tensor.resize_ grows it in place, set_ moves
    # the tensor onto another), not ops of the surface
    "bind_shape.cpp": {"is_set_to", "resize_", "resize_as_", "set_"},
}  # fmt: skip


def test_hand_bindings_are_declared_or_listed():
    """Every public name a csrc/python source binds by hand is a schema row's (generated or `binding: own`) or
    listed in HAND_BOUND with its reason; a listed name that became a row (or left) must leave the list."""
    declared = set()
    for op in OPS:
        for name, _ in op.spellings():
            declared |= {name, name + "_"}
    found = {}
    for path in sorted((op_schema.ROOT_PATH / "csrc" / "python").glob("*.cpp")):
        names = {n for n in _hand_bound(path.read_text()) if not n.startswith("_") and n not in declared}
        if names:
            found[path.name] = names
    assert found == HAND_BOUND


# minitorch._C._nn's functions that are process state, not ops: grid sampling's double-backward hook into Python
# (bind_conv.cpp)
NN_STATE = {"_set_grid_sampler_graph_grads"}


def test_every_nn_function_is_a_module_row():
    """minitorch._C._nn holds the `module: nn` rows' functions and NN_STATE, nothing else: a kernel bound there
    by hand (through a helper or a loop the source scan above cannot read) fails here."""
    rows = {op.name for op in OPS if op.module == "nn"}
    bound = {n for n, f in vars(torch._C._nn).items() if callable(f) and not n.startswith("__")}
    assert bound == rows | NN_STATE
    assert {op.module for op in OPS} == {None, "nn"}


def _undeclared_c_functions():
    declared = set()
    for op in OPS:
        for name, _ in op.spellings():
            declared |= {name, name + "_"}
    listed = set().union(*HAND_BOUND.values())
    bound = {
        n
        for n, f in vars(torch._C).items()
        if not n.startswith("_") and type(f).__name__ == "builtin_function_or_method"
    }
    return bound - declared - listed


def test_every_public_c_function_is_a_row_or_listed(monkeypatch):
    """Every public function of minitorch._C is a schema row's (generated or `binding: own`) or listed in
    HAND_BOUND: a hand binding the source scan misses (bound in a loop over a name table, through a helper)
    fails here, and must become a row, since HAND_BOUND holds only what the scan reads."""
    assert _undeclared_c_functions() == set()
    # the check sees a function bound without a row
    monkeypatch.setattr(torch._C, "frobnicate", torch._C._op_schema, raising=False)
    assert _undeclared_c_functions() == {"frobnicate"}


def test_nn_rows_keep_their_call_forms():
    """The generated _C._nn bindings take nn.functional's calls: keywords, defaults, a sized int list given as
    one int or a one-element integer tensor, conv's string padding (its second overload), and PyTorch's
    TypeErrors for a wrong kind."""
    nn = torch._C._nn
    x, w = torch.randn(1, 2, 6, 6, dtype=torch.float64), torch.randn(3, 2, 3, 3, dtype=torch.float64)
    full = nn.conv2d(x, w, None, (2, 2), (1, 1), (1, 1), 1)
    for call in (
        lambda: nn.conv2d(x, w, None, 2, 1),
        lambda: nn.conv2d(x, w, stride=torch.tensor([2]), padding=[1]),
        lambda: nn.conv2d(input=x, weight=w, bias=None, stride=2, padding=1, dilation=1, groups=1),
    ):
        assert torch.equal(call(), full)
    assert torch.equal(nn.conv2d(x, w, None, 1, "valid"), nn.conv2d(x, w))
    assert nn.conv2d(x, w, None, 1, "same").shape == (1, 3, 6, 6)
    with pytest.raises(TypeError, match=r"conv2d\(\) received an invalid combination of arguments") as e:
        nn.conv2d(x, w, None, "a")
    assert 'str padding = "valid"' in str(e.value)  # PyTorch's quotes on a string default
    with pytest.raises(
        TypeError,
        match=re.escape(
            "conv2d(): argument 'stride' failed to unpack the object at pos 2 with error "
            '"type must be tuple of ints,but got str"'
        ),
    ):
        nn.conv2d(x, w, None, (1, "a"))
    with pytest.raises(
        TypeError, match=re.escape("group_norm(): argument 'num_groups' (position 2) must be int")
    ):
        nn.group_norm(x, 1.5)
    with pytest.raises(
        TypeError, match=re.escape("dropout(): argument 'p' (position 2) must be float, not str")
    ):
        nn.dropout(x, "a", True)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.mse_loss(x, x, "bad")
    # the pools' stride None (and []) is the kernel size; their index pairs are plain tuples
    assert torch.equal(nn.max_pool2d(x, 2), nn.max_pool2d(x, 2, []))
    pair = nn.max_pool2d_with_indices(x, 2)
    assert (
        type(pair) is tuple and torch.equal(pair[0], nn.max_pool2d(x, 2, 2)) and pair[1].dtype == torch.int64
    )
    assert torch.equal(nn.adaptive_avg_pool2d(x, 3), nn.adaptive_avg_pool2d(x, (3, 3)))
    # an adaptive pool's None entry keeps that input size (`int?[]`); a bad entry is the int list's TypeError
    assert torch.equal(nn.adaptive_avg_pool2d(x, (None, 3)), nn.adaptive_avg_pool2d(x, (6, 3)))
    with pytest.raises(
        TypeError,
        match=re.escape("adaptive_max_pool2d(): argument 'output_size' failed to unpack the object at pos 2"),
    ):
        nn.adaptive_max_pool2d(x, (None, 1.5))
    # kl_div's own 'batchmean': the sum over the batch size
    a, b = torch.randn(4, 3, dtype=torch.float64), torch.rand(4, 3, dtype=torch.float64)
    assert torch.allclose(nn.kl_div(a, b, "batchmean"), nn.kl_div(a, b, "sum") / 4)
    # sdpa's keyword-only scale (float?, None: 1/sqrt(E))
    q = torch.randn(2, 3, 4, dtype=torch.float64)
    assert torch.allclose(
        nn.scaled_dot_product_attention(q, q, q, scale=0.25), nn.scaled_dot_product_attention(q * 0.5, q, q)
    )
    with pytest.raises(TypeError):
        nn.scaled_dot_product_attention(q, q, q, None, 0.0, False, 0.5)  # scale is keyword-only


def test_nn_losses_warn_from_the_callers_line():
    """`before: warn_size_mismatch(...)` runs under the GIL before the released call: F.mse_loss's UserWarning
    names the caller's line (stacklevel 2), and a filter that makes it an error raises it."""
    import warnings

    import minitorch.nn.functional as F

    a, b = torch.randn(3, 4), torch.randn(4)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        F.mse_loss(a, b)
    assert len(ws) == 1 and "Using a target size (torch.Size([4]))" in str(ws[0].message)
    assert ws[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
            with pytest.raises(UserWarning, match="that is different to the input size"):
                getattr(torch._C._nn, name)(a, b)


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


# ---- the Python operators and add/sub/div's keywords (`operators:`, `keyword:`, `deprecated:`)

# Python's operator slots a tensor may bind; those on Tensor that no row declares are bound by hand: +x (not a
# table op) and @ (bind_linalg.cpp's matmul)
_SLOTS = {
    f"__{p}{s}__"
    for s in (
        "add",
        "sub",
        "mul",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "and",
        "or",
        "xor",
        "lshift",
        "rshift",
    )
    for p in ("", "r", "i")
} | {
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
}
_HAND_OPERATORS = {"__pos__", "__matmul__", "__rmatmul__", "__imatmul__"}


def _declared_operators():
    return {name: (op, form) for op in OPS for name, form in op.operators}


def test_extension_carries_the_operators_and_keywords():
    """_C._op_schema_bindings() is what the build bound the operators and keywords from (a stale build fails)."""
    want = []
    for op in OPS:
        if op.operators:
            want.append((op.name, "operators", " ".join(f"{n}[{f}]" for n, f in op.operators)))
        want += [(op.name, key, getattr(op, key)) for key in ("keyword", "deprecated") if getattr(op, key)]
    assert [tuple(r) for r in torch._C._op_schema_bindings()] == want, "rebuild: another schema's operators"
    assert {op.name: op.keyword for op in OPS if op.keyword} == {
        "add": "alpha",
        "sub": "alpha",
        "div": "rounding_mode",
        "round": "decimals",
    }


def test_tensor_operators_are_exactly_the_declared_ones():
    """Every operator a row declares is bound on Tensor in C++, and every operator slot Tensor binds is declared
    or one of the few hand-written ones (a binding left behind, or a row that lost its `operators:`, fails)."""
    declared = _declared_operators()
    bound = {n for n in _SLOTS if _cpp_method(n)}
    assert set(declared) <= bound, sorted(set(declared) - bound)
    assert bound - set(declared) <= _HAND_OPERATORS, sorted(bound - set(declared) - _HAND_OPERATORS)
    # 12 ops' forward, reverse and in-place operators, 6 comparisons, -, abs and ~
    assert len(declared) == 45


@pytest.mark.parametrize("dunder", sorted(_declared_operators()))
def test_each_operator_computes_its_op_in_its_form(dunder):
    op, form = _declared_operators()[dunder]
    fn = getattr(torch._C, op.name)
    if op.name.startswith("bitwise") or op.name == "bitwise_not":
        x, y = torch.tensor([6, -3, 5]), torch.tensor([3, 5, 1])
    else:
        x, y = torch.tensor([1.5, -2.0, 3.0]), torch.tensor([0.5, 4.0, -3.0])
    call = getattr(x.clone(), dunder)
    if form == "unary":
        assert _same(getattr(x, dunder)(), fn(x))
        return
    if form == "invert":
        assert _same(~x, fn(x)) and _same(~(x > 0), torch.logical_not(x > 0))
        return
    assert call("a string") is NotImplemented and call([1.0, 2.0]) is NotImplemented
    if form == "fwd":
        assert _same(getattr(x, dunder)(y), fn(x, y))
    elif form == "rev":
        assert _same(getattr(x, dunder)(2), fn(torch.tensor(2), x))
    elif form == "inplace":
        z = x.clone()
        assert getattr(z, dunder)(y) is z and _same(z, fn(x, y))
    else:  # reciprocal_mul: PyTorch's __rdiv__, rounded twice
        assert form == "reciprocal_mul" and _same(x.__rtruediv__(2.0), torch.reciprocal(x) * 2.0)


def test_generator_rejects_malformed_operators_and_keywords():
    row = "binary foo\n  functor: Foo\n  dtype: arith\n  grad: none\n"
    assert "after 'foo' come rfoo and ifoo" in _err(row + "  operators: foo bar\n")
    assert "operator form 'twice' is not one of" in _err(row + "  operators: foo rfoo[twice]\n")
    assert "one operator" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n  operators: a b\n"
    )
    assert "operator __add__ is already bound by 'foo'" in _err(
        row + "  operators: add\nbinary bar\n  functor: Bar\n  dtype: arith\n  grad: none\n  operators: add\n"
    )
    assert "keyword takes one of alpha, rounding_mode" in _err(row + "  keyword: beta\n")
    assert "keyword takes one of alpha, rounding_mode, got 'decimals'" in _err(row + "  keyword: decimals\n")
    unary = "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n"
    assert "keyword takes one of decimals, got 'alpha'" in _err(unary + "  keyword: alpha\n")
    assert "'deprecated:' is for binary rows" in _err(unary + "  deprecated: alpha_first\n")
    assert "needs 'keyword: alpha'" in _err(row + "  deprecated: alpha_first\n")
    assert "'binding:' is for funcs" in _err(row + "  binding: own\n")
    (foo,) = gen_ops.parse(row + "  operators: foo rfoo ifoo\n  keyword: alpha\n", "s")
    assert foo.operators == (("__foo__", "fwd"), ("__rfoo__", "rev"), ("__ifoo__", "inplace"))
    assert '_("__rfoo__", foo, op_rev)' in gen_ops.bindings_header([foo])


def test_operators_and_keywords_in_pytorchs_words(recwarn):
    """The operator and keyword forms as PyTorch has them: alpha and its refusals, rounding_mode's message,
    the in-place cast check, numpy scalars, NotImplemented for a list (Python then raises)."""
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 5.0])
    assert torch.add(x, y, alpha=2).tolist() == [7.0, 12.0] and x.sub(y, alpha=0.5).tolist() == [-0.5, -0.5]
    z = x.clone()
    assert z.add_(y, alpha=-1) is z and z.tolist() == [-2.0, -3.0]
    # the deprecated (input, alpha, other) spelling (its one warning per process: test_deprecated_signatures.py)
    assert torch.add(x, 2, y).tolist() == [7.0, 12.0]
    with pytest.raises(TypeError):  # `subtract` has no deprecated form
        torch.subtract(x, 2, y)
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        torch.add(torch.tensor([1]), torch.tensor([2]), alpha=0.5)
    with pytest.raises(
        RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor'"
    ):
        x.div_(y, rounding_mode="round")
    assert torch.div(x, y, rounding_mode="floor").tolist() == [0.0, 0.0]
    i = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i += 0.5
    assert (x * np.float64(2.0)).tolist() == [2.0, 4.0] and (np.int64(3) - x).tolist() == [2.0, 1.0]
    with pytest.raises(TypeError):
        _ = [1.0, 2.0] + x  # list's concatenation refuses; Tensor.__radd__ answers NotImplemented
    assert x.__radd__([1.0, 2.0]) is NotImplemented and x.__add__() is NotImplemented
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        _ = ~x
    with pytest.raises(NotImplementedError, match="The `\\+` operator, on a bool tensor is not supported"):
        _ = +(x > 1)


def test_autocast_rows_come_from_the_schema():
    policy = {name: (cuda, cpu) for name, cuda, cpu in torch._C._autocast_policy()}
    for op in OPS:
        if op.kind == "func":
            continue  # a func's autocast is in its C++ front end (ops/autocast.h's hand rows)
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


def test_twin_formulas_in_the_schema():
    """A `grad:` row is a one-tensor-input twin's formula, generated into twin_grads.inc (node <Name>Backward0,
    saving self when it reads it); twins of several inputs take `grad_<input>:` rows (tests/autograd/
    test_twin_formulas.py), and the generator says so."""
    twins = {t.name: t for t in gen_ops.load_twins()}
    text = gen_ops.outputs(OPS)["twin_grads.inc"]
    generated = [name for name, t in twins.items() if t.grad]
    assert {"leaky_relu", "hardshrink", "threshold", "elu", "polygamma"} <= set(generated)
    for name in generated:
        node = twins[name].node or f"{gen_ops._camel(name)}Backward0"
        names = re.findall(r'"(\w+)"', node) or [node]  # a C++ expression choosing the name (sum's 0 or 1)
        assert all(f'"{n}"' in text for n in names) and f" {name}(" in text, name
    assert "[n](FnNode& node_, V& grads_)" in text  # polygamma's order n: captured by value, the node renamed

    def err(text):
        with pytest.raises(gen_ops.SchemaError) as e:
            gen_ops.parse_twins(text, "ops.schema")
        return str(e.value)

    assert "'grad:' is for a twin of one tensor input `self`; give the others 'grad_<input>:'" in err(
        "twin foo(const Tensor& a, const Tensor& b) -> Tensor\n  family: elementwise\n  grad: grad\n"
    )
    assert "'grad:' reads grad, self, result and the parameters" in err(
        "twin foo(const Tensor& self) -> Tensor\n  family: elementwise\n  grad: node_.saved(0)\n"
    )
    # the check of the twin's shape does not depend on the order of the keys
    assert "a schema formula is for a twin returning Tensor (or a tuple, or an in-place" in err(
        "twin foo(const Tensor& self) -> Tensor\n  family: elementwise\n  grad: grad\n  when: view\n"
    )


def test_generated_text_is_deterministic_and_complete(tmp_path):
    """Two runs write the same bytes (ccache and Ninja rely on it); every unary op gets a derivative case."""
    first = gen_ops.outputs(OPS)
    assert first == gen_ops.outputs(gen_ops.load())
    gen_ops.write(str(tmp_path), OPS)
    for name, text in first.items():
        assert (tmp_path / "generated" / name).read_text() == text
    grads = first["elementwise_grad.inc"]
    for op in OPS:
        if op.kind == "unary":
            assert f"case UnaryOp::{op.name}:" in grads, op.name
    assert "default:" not in grads.split("bool unary_saves_input")[0], "a default: would hide a missing case"


def test_func_bindings_follow_their_signatures():
    """Keyword names, defaults, keyword-only arguments and in-place forms as the schema's signatures say."""
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 5.0, 4.0]])
    values, indices = torch.sort(input=x, dim=0, descending=True, stable=None)
    assert values.tolist() == [[3.0, 5.0, 4.0], [0.5, 1.0, 2.0]] and indices.tolist() == [
        [0, 1, 1],
        [1, 0, 0],
    ]
    assert x.topk(2).values.tolist() == [[3.0, 2.0], [5.0, 4.0]]
    assert torch.argmax(x).item() == 4 and x.argmax(1, keepdim=True).tolist() == [[0], [1]]
    assert torch.softmax(x, 1, torch.float64).dtype == torch.float64  # dtype positional, as PyTorch's
    assert torch.cumsum(x, 1, dtype=torch.float64).dtype == torch.float64
    with pytest.raises(TypeError):
        torch.cumsum(x, 1, torch.float64)  # keyword-only there
    assert torch.logsumexp(x, (0, 1)).shape == () and x.logsumexp(dim=1, keepdim=True).shape == (2, 1)
    y = x.clone()
    assert y.tril_(-1) is y and y.tolist() == [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]]
    out = torch.empty(2, 3)
    assert torch.triu(x, diagonal=1, out=out) is out and out.tolist() == [[0.0, 1.0, 2.0], [0.0, 0.0, 4.0]]
    with pytest.raises(TypeError):
        torch.topk(x, k=1.5)


def test_generator_rejects_malformed_funcs():
    assert "expected 'func name(<args>) -> <returns>'" in _err("func foo(Tensor self)\n")
    assert "type one of" in _err("func foo(Tensor self, size dim) -> Tensor\n")
    assert "a method or in-place form needs a 'Tensor self'" in _err("func foo(int dim) -> Tensor\n")
    assert "a method or in-place form needs a 'Tensor self'" in _err("func foo(Tensor cond) -> Tensor\n")
    assert "at least one argument" in _err("func foo() -> Tensor\n  variants: none\n")
    assert "'rules:' takes only 'python'" in _err("func foo(Tensor self) -> Tensor\n  rules: cpp\n")
    assert "write 'binding: own <why the signature cannot say it>'" in _err(
        "func foo(Tensor self) -> Tensor\n  binding: own\n"
    )
    (own,) = gen_ops.parse("func foo(Tensor self) -> Tensor\n  binding: own two overloads\n", "s")
    assert own.own_binding and "foo" not in gen_ops.bind_funcs_cpp([own])
    assert "'rules: python' says its jvp/vmap rules are not here" in _err(
        "func foo(Tensor self) -> Tensor\n  rules: python\n  vmap: pointwise\n"
    )
    assert "'rules:' is for funcs" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n  rules: python\n"
    )
    # jvp_absent says what a rule's scope holds for a missing tangent: only beside a rule, and only `none`
    assert "'jvp_absent:' without a 'jvp:' rule" in _err(
        "func foo(Tensor self) -> Tensor\n  jvp_absent: none\n"
    )
    assert "'jvp_absent:' takes only 'none'" in _err(
        "func foo(Tensor self) -> Tensor\n  jvp: t_self\n  jvp_absent: zeros\n  dual_term: linear\n"
    )
    (kept,) = gen_ops.parse(
        "func foo(Tensor self, Tensor? w=None) -> Tensor\n  jvp_args: self, w=None\n  jvp_self: t_self\n"
        "  jvp_absent: none\n  dual_term: linear\n",
        "s",
    )
    assert dict(kept.transforms) == {"jvp_args": "self, w=None", "jvp_self": "t_self", "jvp_absent": "none"}
    assert "default None needs an optional type" in _err("func foo(Tensor self, int dim=None) -> Tensor\n")
    assert "without a default follows one with a default" in _err(
        "func foo(Tensor self, int a=1, int b) -> Tensor\n"
    )
    assert "returns 'int'" in _err("func foo(Tensor self) -> int\n")
    assert "list 'out' in variants exactly when 'out:'" in _err(
        "func foo(Tensor self) -> Tensor\n  variants: method out\n"
    )
    assert "'grad:' is for elementwise ops" in _err("func foo(Tensor self) -> Tensor\n  grad: none\n")
    assert "returns '(Tensor a)'" in _err("func foo(Tensor self) -> (Tensor a)\n")  # a tuple has two or more
    assert "unknown variant 'nothing'" in _err("func foo(Tensor self) -> Tensor\n  variants: nothing\n")
    assert "write 'nogil: product <a> <b>'" in _err(
        "func foo(Tensor self, Tensor b) -> Tensor\n  nogil: product self c\n"
    )
    assert "'torch_function:' takes only 'fallback'" in _err(
        "func foo(Tensor self) -> Tensor\n  torch_function: always\n"
    )
    assert "'nogil:' is for funcs" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n  nogil: x\n"
    )


def test_module_rows_bind_into_their_submodule():
    """`module: nn` binds the function alone into minitorch._C._nn; `nogil: always` / `nogil: when <condition>`
    release the GIL whatever the sizes / by a condition; `before:` runs under the GIL after the arguments
    converted, before the released call; an overload's int[N] takes one int standing for the list."""
    (op,) = gen_ops.parse(
        "func foo(Tensor input, int[2] stride=1, float? scale=None) -> Tensor\n  module: nn\n  nogil: always\n"
        "  before: warn(input)\n",
        "s",
    )
    assert (op.module, op.variants, op.function) == ("nn", (), True)
    text = gen_ops.bind_funcs_cpp([op])
    assert 'py::module_ m_nn = m.def_submodule("_nn");' in text
    assert (
        'm_nn.def("foo", fn, py::arg("input"), py::arg("stride") = int64_t(1), py::arg("scale") = py::none());'
        in text
    )
    body = text.split('m_nn.def("foo"')[0]
    assert (
        body.index("warn(input);") > body.index("DimVector stride")
        and "return nogil([&] { return foo(input, stride, scale); });" in body
    )
    (when,) = gen_ops.parse(
        "func foo(Tensor input, Tensor w) -> Tensor\n  module: nn\n  nogil: when big(input, w)\n", "s"
    )
    assert "nogil_if(big(input, w), [&] { return foo(input, w); })" in gen_ops.bind_funcs_cpp([when])
    two = gen_ops.parse(
        "func foo(Tensor input, int[2] stride=1, int[2] padding=0) -> Tensor\n  module: nn\n"
        "func foo.padding(Tensor input, int[2] stride=1, str padding='valid') -> Tensor\n",
        "s",
    )
    assert "SizedIntListArg stride_obj, SizedIntListArg padding_obj" in gen_ops.bind_funcs_cpp(two)
    assert all(o.module == "nn" for o in two[0].overloads)
    assert "no 'variants:'" in _err("func foo(Tensor self) -> Tensor\n  module: nn\n  variants: method\n")
    assert "binds into minitorch._C._<name>" in _err("func foo(Tensor self) -> Tensor\n  module: _nn\n")
    assert "'nogil: always'" in _err("func foo(Tensor self) -> Tensor\n  nogil: sometimes\n")
    assert "unbalanced parentheses in 'before:'" in _err("func foo(Tensor self) -> Tensor\n  before: warn(\n")


def test_product_rows_release_by_their_work():
    """`nogil: product a b` releases the GIL by big_product(a, b) (a GEMM's m*n*k), the default by the tensors'
    sizes; `torch_function: fallback` lists the row in MT_FUNC_TORCH_FUNCTION for bind_linalg.cpp."""
    (op,) = gen_ops.parse(
        "func foo(Tensor self, Tensor b) -> Tensor\n  variants: method inplace\n  nogil: product self b\n"
        "  torch_function: fallback\n",
        "s",
    )
    text = gen_ops.bind_funcs_cpp([op])
    assert text.count("nogil_if(big_product(self, b), [&] { return foo(self, b); })") == 2
    assert "nogil_if(big_product(self, b), [&] { foo_(self, b); });" in text
    assert '_("foo")' in gen_ops.bindings_header([op]).split("MT_FUNC_TORCH_FUNCTION(_)")[1].split("//")[0]
    (plain,) = gen_ops.parse("func foo(Tensor self, Tensor b) -> Tensor\n", "s")
    assert "nogil([&] { return foo(self, b); }, self, b)" in gen_ops.bind_funcs_cpp([plain])
    assert {op.name for op in OPS if op.torch_function_fallback} == {"mm", "matmul", "addmm"}


def test_private_funcs_return_plain_tuples_and_bind_no_method():
    # `variants: none` binds the function alone; a tuple of named tensors other than (values, indices) returns
    # a plain tuple, which the Python wrapper names (linalg's LAPACK primitives)
    (op,) = gen_ops.parse(
        "func _foo(Tensor self, bool upper) -> (Tensor L, Tensor info)\n  variants: none\n", "s"
    )
    assert op.variants == () and op.returns == "(Tensor L, Tensor info)"
    L, info = torch._C._linalg_cholesky_ex(torch.eye(2, dtype=torch.float64) * 4, False)
    assert type(L) is torch.Tensor and info.dtype == torch.int32 and L.tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert not hasattr(torch.Tensor, "_linalg_cholesky_ex")


def test_binary_nodes_save_what_their_formulas_read():
    """mul's self-gradient reads other only: with just `a` requiring grad, writing into `a` afterwards is
    harmless and writing into `b` fails backward. floor_divide saves both (`save:`), as PyTorch does."""
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a1, b = a * 1, torch.tensor([3.0, 4.0], dtype=torch.float64)
    y = a1 * b
    a1.add_(1)
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0]
    b2 = b.clone()
    z = (a * 1) * b2
    b2.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    a3 = a * 1
    w = torch.floor_divide(a3, b)
    a3.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()
    assert op_schema.BY_NAME["floor_divide"].save == ("self", "other")


def test_generator_rejects_malformed_binary_formulas():
    head = "binary foo\n  functor: Foo\n  dtype: arith\n"
    assert "needs grad_self and grad_other" in _err(head + "  grad_self: grad\n")
    assert "say what it needs with 'save:'" in _err(head + "  grad: foo_grad\n")
    assert "names a function" in _err(head + "  grad: mul(grad, other)\n")
    assert "save lists self and/or other" in _err(head + "  grad: foo_grad\n  save: result\n")
    assert "'grad_self:' is for binary ops" in _err(
        "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n  grad_self: grad\n"
    )


def test_refusals_come_from_the_schema():
    """Each `refuse:` row raises PyTorch's NotImplementedError; the messages themselves are held against
    PyTorch's for every op and dtype by tests/ops/elementwise/test_elementwise.py (tests/ops/elementwise_oracle.py)."""
    refusing = {op.name: op.refuse for op in OPS if op.refuse}
    assert refusing["abs"] == ("bool", "kernel", "abs") and refusing["gelu"][0] == "non_floating"
    with pytest.raises(NotImplementedError, match="\"floor_vml_cpu\" not implemented for 'Bool'"):
        torch.floor(torch.tensor([True]))
    with pytest.raises(NotImplementedError, match="Boolean inputs not supported for relu"):
        torch.relu(torch.tensor([True]))
    head = "unary foo\n  functor: Foo\n  dtype: same\n  grad: none\n"
    assert "write 'refuse: <bool | floating | non_floating | reduced> kernel" in _err(
        head + "  refuse: ints kernel foo\n"
    )
    assert "one name (+_cpu/_cuda) or a CPU and a CUDA name" in _err(head + "  refuse: bool kernel a b c\n")
    assert "'refuse:' is written for unary ops only" in _err(
        "binary foo\n  functor: Foo\n  dtype: arith\n  grad: none\n  refuse: bool kernel foo\n"
    )


def test_func_arguments_are_checked_in_pytorchs_words():
    """A bool where an int goes, an int where a bool goes, a float for an int: PyTorch's TypeError, naming the
    function, the argument and its position (a method's count skips self; one given by keyword has none)."""
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 5.0, 4.0]])
    cases = [
        (
            lambda: torch.logsumexp(x, 1, 1),
            "logsumexp(): argument 'keepdim' (position 3) must be bool, not int",
        ),
        (lambda: x.logsumexp(1, 1), "logsumexp(): argument 'keepdim' (position 2) must be bool, not int"),
        (lambda: torch.topk(x, True), "topk(): argument 'k' (position 2) must be int, not bool"),
        (lambda: torch.argmax(x, dim=1.5), "argmax(): argument 'dim' must be int, not float"),
        (lambda: torch.sort(x, stable=1), "sort(): argument 'stable' must be bool, not int"),
        (lambda: x.tril_(True), "tril_(): argument 'diagonal' (position 1) must be int, not bool"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == message
    # integers that are not Python ints still count, as in PyTorch
    assert torch.topk(x, np.int64(2)).values.shape == (2, 2)
    assert torch.argmax(x, dim=None).item() == 4


def _without(text, name):
    """_C.pyi's text without any stub line of `name` (module function, Tensor method, in-place forms)."""
    keep, lines = [], text.split("\n")
    for i, line in enumerate(lines):
        if re.match(rf"^\s*def {name}_?\(", line):
            if keep and keep[-1].strip().startswith("@"):
                keep.pop()  # its decorator
            continue
        keep.append(line)
    return "\n".join(keep)


def test_stub_lines_of_the_elementwise_ops():
    """`gen_ops.py --stubs` adds the stub lines _C.pyi lacks for the schema's elementwise spellings: on today's
    file it adds none (a spelling without a stub is a drift), and on a file without erfc's and true_divide's
    lines it writes each form the schema declares, where tests/project/test_docs.py looks for them."""
    with open(gen_ops.STUBS, encoding="utf-8") as f:
        text = f.read()
    assert gen_ops.add_missing_stubs(text, OPS) == text, "run: python scripts/gen_ops.py --stubs"
    stripped = _without(_without(text, "erfc"), "true_divide")
    assert "def erfc(" not in stripped and "def true_divide_(" not in stripped
    filled = gen_ops.add_missing_stubs(stripped, OPS)
    tree = ast.parse(filled)
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    module = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    methods = {n.name for n in tensor.body if isinstance(n, ast.FunctionDef)}
    assert {"erfc", "erfc_", "true_divide"} <= module and {
        "erfc",
        "erfc_",
        "true_divide",
        "true_divide_",
    } <= methods
    assert "def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ..." in filled
    assert "    def true_divide_(self, other: Tensor | builtins.float) -> Tensor: ..." in filled
    assert gen_ops.add_missing_stubs(filled, OPS) == filled  # nothing twice


def test_stub_lines_of_the_funcs():
    """A func row's function, method and in-place form get their stub lines the same way (a generated
    binding without one is a drift that the check above reports)."""
    with open(gen_ops.STUBS, encoding="utf-8") as f:
        text = f.read()
    filled = gen_ops.add_missing_stubs(_without(_without(text, "masked_fill"), "clamp_min"), OPS)
    assert (
        "def clamp_min(input: Tensor, min: typing.Any, *, out: Tensor | None = None) -> Tensor: ..." in filled
    )
    assert "    def clamp_min(self, min: typing.Any) -> Tensor: ..." in filled
    assert "    def masked_fill_(self, mask: Tensor, value: typing.Any) -> Tensor: ..." in filled
    assert gen_ops.add_missing_stubs(filled, OPS) == filled


def test_view_rows_keep_the_gil_and_overloads_take_tuples_of_ints():
    """`gil: keep` binds the call without releasing the GIL (a view only rewrites metadata), its in-place form
    too; an overload's int[] is bind_shape.h's IntListArg; a Tensor[] result is for hand bindings only."""
    (op,) = gen_ops.parse(
        "func foo(Tensor self, int dim) -> Tensor\n  variants: method inplace\n  gil: keep\n  rules: python\n"
        "func foo.dims(Tensor self, int[] dim) -> Tensor\n",
        "s",
    )
    text = gen_ops.bind_funcs_cpp([op])
    body = text[text.index("init_schema_funcs") :]
    assert "nogil" not in body and "foo_(self, dim);" in body and "IntListArg dim_obj" in body
    (released,) = gen_ops.parse("func foo(Tensor self, int dim) -> Tensor\n  rules: python\n", "s")
    assert "nogil" in gen_ops.bind_funcs_cpp([released]).split("init_schema_funcs")[1]
    assert "'gil:' takes only 'keep'" in _err("func foo(Tensor self) -> Tensor\n  gil: release\n")
    assert "a Tensor[] result is bound by hand" in _err(
        "func foo(Tensor self) -> Tensor[]\n  rules: python\n"
    )
    # the rows' in-place views write into self and return the very object; a bad argument leaves it as it was
    x = torch.zeros(1, 2, 1, 3)
    assert x.squeeze_((0, 2)) is x and x.shape == (2, 3)
    assert x.transpose_(0, 1) is x and x.shape == (3, 2) and x.stride() == (1, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.swapdims_(0, 5)
    assert x.shape == (3, 2) and x.unsqueeze_(-1) is x and x.shape == (3, 2, 1)


def _without_python_methods(text, names):
    """_C.pyi's text without the Tensor blocks (decorators, def, docstring) of the Python methods `names`."""
    lines, keep, skip = text.split("\n"), [], False
    for i, line in enumerate(lines):
        m = re.match(r"^    def (\w+)\(", line)
        if m or re.match(r"^    @", line) or not line.startswith("        "):
            skip = False
        if line == "    @staticmethod" and i + 1 < len(lines):
            m = re.match(r"^    def (\w+)\(", lines[i + 1])
            skip = bool(m and m.group(1) in names)
        elif m and m.group(1) in names and not (keep and keep[-1] == "    @staticmethod"):
            skip = True
        if not skip:
            keep.append(line)
    return "\n".join(keep)


def test_stub_lines_of_the_python_methods():
    """`--stubs` writes the Python methods on Tensor (the composites' TENSOR_METHODS) as pybind11-stubgen does:
    on today's file it adds none (a method without its line is a drift), and without some composites' blocks it
    writes each back where it was, to the character, so a composed op's method needs no hand-written line."""
    with open(gen_ops.STUBS, encoding="utf-8") as f:
        text = f.read()
    methods = gen_ops.python_methods()
    assert gen_ops.add_missing_stubs(text, OPS, methods) == text, "run: python scripts/gen_ops.py --stubs"
    names = {"deg2rad", "deg2rad_", "cummax", "addcmul", "addcmul_", "vsplit"}  # vsplit: the run's last
    assert names <= set(methods)
    stripped = _without_python_methods(text, names)
    assert all(f"def {n}(" not in stripped for n in names)
    assert gen_ops.add_missing_stubs(stripped, OPS, methods) == text
    assert gen_ops.add_missing_stubs(stripped, OPS) == stripped  # without a build, the schema's lines only
