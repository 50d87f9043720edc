"""csrc/ops/ops.schema as the tests read it: parsed by scripts/gen_ops.py, the parser the build uses."""

import importlib.util
import os
import pathlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT_PATH = pathlib.Path(ROOT)
_spec = importlib.util.spec_from_file_location("gen_ops", os.path.join(ROOT, "scripts", "gen_ops.py"))
gen_ops = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_ops)

OPS = gen_ops.load()


def schema_error(text, parse=None):
    """The message of the SchemaError the generator raises for a schema text (`parse`: gen_ops.parse, or
    gen_ops.parse_twins for twin rows)."""
    import pytest

    with pytest.raises(gen_ops.SchemaError) as e:
        (parse or gen_ops.parse)(text, "ops.schema")
    return str(e.value)


def function(name):
    """A schema op's function: minitorch.<name>, or _C's for the private ones (special.i1 is _C._special_i1)."""
    import minitorch

    return getattr(minitorch, name, None) or getattr(minitorch._C, name)


BY_NAME = {op.name: op for op in OPS}
UNARY = [op.name for op in OPS if op.kind == "unary"]
BINARY = [op.name for op in OPS if op.kind == "binary"]
# the result-dtype rule in the words tests/ops/elementwise/test_elementwise.py uses (comparisons and logical ops give bool)
RESULT_RULE = {
    "Same": "same",
    "Float": "float",
    "Bool": "bool",
    "Arith": "arith",
    "Div": "div",
    "Compare": "bool",
    "Logical": "bool",
    "Bitwise": "arith",
}
