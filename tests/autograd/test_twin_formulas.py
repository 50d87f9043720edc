"""Each recording twin's derivative lives in exactly one place: its ops.schema row or autograd/*.cpp, never both."""

import os
import re

from utils import REPO

from tests.ops.op_schema import gen_ops, schema_error

TWINS = [t for t in gen_ops.load_twins() if t.recorded]
# a top-level definition in mt::autograd: its return type at column 0, the name, the parameters, the body
DEFINITION = re.compile(
    r"^(?:static\s+)?(?:const Tensor&|Tensor|std::tuple<[^;{}]*?>|std::vector<Tensor>)\s+(\w+)\(([^;{}]*?)\)\s*\{",
    re.MULTILINE,
)


def hand_written():
    """(name, number of parameters) of every function defined in derivatives.cpp and views.cpp."""
    found = set()
    for f in ("derivatives.cpp", "views.cpp"):
        with open(os.path.join(REPO, "csrc", "autograd", f), encoding="utf-8") as fh:
            text = fh.read()
        for m in DEFINITION.finditer(text):
            found.add((m.group(1), len(gen_ops._split_cpp_params(m.group(2)))))
    return found


def test_each_twin_has_one_formula():
    """A twin written by the build from its schema row must not also be defined by hand (the two would differ
    silently in a build that links the other), and a twin without a schema formula must be defined by hand."""
    defined = hand_written()
    both = [t.name for t in TWINS if t.has_formula() and (t.name, len(t.params)) in defined]
    neither = [t.name for t in TWINS if not t.has_formula() and (t.name, len(t.params)) not in defined]
    assert both == [], f"twins with a schema formula that are also written by hand: {both}"
    assert neither == [], f"twins with neither a schema formula nor a hand-written one: {neither}"


def test_schema_formulas_are_generated():
    """Every twin holding a formula in the schema is written into twin_grads.inc, once."""
    text = gen_ops.twin_grads_inc(gen_ops.load_twins())
    for t in TWINS:
        head = f"{t.cpp_ret()} {t.name}{t.cpp_params()} {{"
        assert text.count("\n" + head + "\n") == (1 if t.has_formula() else 0), t.name


def test_the_finder_sees_definitions():
    """The scan above finds hand-written twins (so the test can fail): binary, the fused RNN and the views are
    written by hand."""
    defined = hand_written()
    assert ("binary", 3) in defined and ("cudnn_rnn", 5) in defined and ("view", 2) in defined


def _err(text):
    return schema_error(text, gen_ops.parse_twins)


def test_twin_formula_keys_are_checked():
    """The derivative keys' mistakes are schema errors naming the twin, not C++ compile errors."""
    head = (
        "twin foo(const Tensor& self, const Tensor& other, double alpha) -> Tensor\n  family: elementwise\n"
    )
    assert "'grad_alpha' names no tensor parameter" in _err(head + "  grad_alpha: grad\n")
    assert "'grad:' is for a twin of one tensor input `self`" in _err(head + "  grad: grad\n")
    assert "'grads:' gives every tensor input's gradient, alone" in _err(
        head + "  grads: foo_grads(grad)\n  grad_self: grad\n"
    )
    assert "write 'let: <name> = <C++ expression>'" in _err(
        head + "  let: mt::neg(grad)\n  grad_self: grad\n"
    )
    assert "'grad:', 'grad_<input>:' or 'grads:' gives the derivative" in _err(
        head + "  node: FooBackward1\n"
    )
    inplace = "twin foo_(const Tensor& self) -> const Tensor&\n  family: elementwise\n"
    assert "'inplace_of:' is for a twin returning const Tensor& over `self`, alone" in _err(
        inplace + "  inplace_of: foo\n  node: FooBackward0\n"
    )
    assert (
        "a schema formula is for a twin returning Tensor (or a tuple, or an in-place <name>_ over self)"
        in _err("twin foo(const Tensor& self) -> std::vector<Tensor>\n  family: elementwise\n  grad: grad\n")
    )
    assert "'outputs:' names each tensor the forward returns" in _err(
        "twin foo(const Tensor& self) -> TensorPair\n  family: elementwise\n  outputs: values indices\n  grad: grad\n"
    )


def test_generated_twin_saves_what_its_formulas_read():
    """Each input is saved for the gradients whose formulas read it (mm: self only for other's gradient),
    parameters the formulas read are captured by value (an IntArrayRef as a DimVector), an edge marked `none`
    keeps its slot empty, and `result` is saved as the output."""
    twins = gen_ops.parse_twins(
        "twin foo(const Tensor& self, const Tensor& mask, const Tensor& other, IntArrayRef dims, double p) -> Tensor\n"
        "  family: elementwise\n"
        "  grad_self: mt::mul(grad, other)\n"
        "  grad_mask: none\n"
        "  grad_other: mt::sum(mt::mul(grad, mask), dims, false)\n"
        "twin bar(const Tensor& self, double p) -> Tensor\n"
        "  family: elementwise\n"
        "  capture: q = p * 2\n"
        "  let: r = mt::mul(result, S(q))\n"
        "  grad: mt::mul(grad, r)\n",
        "ops.schema",
    )
    foo, bar = (gen_ops.twin_formula(t) for t in twins)
    assert '{"other", other, grad_of(0)}' in foo and '{"mask", mask, grad_of(2)}' in foo
    assert '"self", self' not in foo  # no formula reads it
    assert "{&self, nullptr, &other}" in foo and "V r_(3);" in foo
    assert "[dims = DimVector(dims.begin(), dims.end())]" in foo  # p is not read: not captured
    assert '"FooBackward0"' in foo and "if (node_.needs_input_grad(2)) r_[2] = " in foo
    assert '{{"result", result, kAlways, true}}' in bar and "[q = p * 2]" in bar
    assert "const auto r = mt::mul(result, S(q));" in bar and "return {mt::mul(grad, r)};" in bar


def test_generated_in_place_and_tuple_twins():
    """An in-place twin records from a clone of self through the generic in-place path; a forward of several
    outputs names them, records the first and saves the others a formula reads as plain tensors."""
    twins = gen_ops.parse_twins(
        "twin foo_(const Tensor& self, const Tensor& src) -> const Tensor&\n"
        "  family: elementwise\n"
        "  grad_self: zeros_like(grad)\n"
        "  grad_src: grad\n"
        "twin bar(const Tensor& self, int64_t dim) -> TensorPair\n"
        "  family: elementwise\n"
        "  outputs: result indices\n"
        "  grad: mt::gather(grad, dim, indices)\n",
        "ops.schema",
    )
    foo, bar = (gen_ops.twin_formula(t) for t in twins)
    assert "return inplace(self, [&](const Tensor& self) {" in foo
    assert "Tensor o_ = mt::clone(self); mt::foo_(o_, src); return o_;" in foo and "{&self, &src}" in foo
    assert "std::tuple<Tensor, Tensor> bar(" in bar and "const Tensor& indices = std::get<1>(outs_);" in bar
    assert '{{"indices", indices, kAlways}}' in bar and "return outs_;" in bar


def test_save_as_renames_the_saved_tensor():
    """`save_as:` saves a parameter under PyTorch's name (grad_fn._saved_query) and reads it back by that name."""
    (t,) = gen_ops.parse_twins(
        "twin foo(const Tensor& q, const Tensor& k) -> Tensor\n"
        "  family: elementwise\n"
        "  save_as: q=query\n"
        "  grad_k: mt::mul(grad, q)\n",
        "ops.schema",
    )
    text = gen_ops.twin_formula(t)
    assert '{"query", q, kAlways}' in text and 'const Tensor q = node_.saved("query");' in text
    assert "{&k}" in text  # q has no gradient row: not an input
    assert "write 'save_as: <parameter>=<saved name> ...'" in _err(
        "twin foo(const Tensor& q) -> Tensor\n  family: elementwise\n  save_as: query\n  grad_q: grad\n"
    )


def test_a_list_of_tensors_is_one_input_per_element():
    """cat's `inputs: tensors`: the node gets an edge per element and the formula a need flag per element."""
    (t,) = gen_ops.parse_twins(
        "twin foo(const std::vector<Tensor>& tensors, int64_t dim) -> Tensor\n"
        "  family: elementwise\n"
        "  inputs: tensors\n"
        "  grads: foo_grads(grad, dim, need_tensors)\n",
        "ops.schema",
    )
    text = gen_ops.twin_formula(t)
    assert "for (const Tensor& t_ : tensors) ins_.push_back(&t_);" in text and "record(" in text
    assert '"FooBackward0", ins_, {&result}' in text and "std::vector<bool> need_tensors(" in text
    assert "a list of tensors is the node's only input" in _err(
        "twin foo(const std::vector<Tensor>& tensors, const Tensor& self) -> Tensor\n  family: elementwise\n"
        "  inputs: tensors self\n  grads: foo_grads(grad)\n"
    )
