"""Generates the op tables from csrc/ops/ops.schema (the op surface, declared once): run by the build, which
includes what it writes, and by the tests, which compare the schema with the built extension.

    python scripts/gen_ops.py OUT_DIR        # writes OUT_DIR/generated/{ops_schema.h,unary_grad.inc}

Files are rewritten only when their text changes, so an unchanged schema costs no recompilation.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "csrc", "ops", "ops.schema")

KINDS = ("unary", "binary")
KEYS = {"functor", "dtype", "variants", "aliases", "autocast", "grad", "binding"}
RULES = {
    "unary": {"same": "Same", "float": "Float", "bool": "Bool"},
    "binary": {
        "arith": "Arith",
        "div": "Div",
        "compare": "Compare",
        "logical": "Logical",
        "bitwise": "Bitwise",
    },
}
VARIANTS = ("method", "inplace", "out", "torch_inplace")
DEFAULT_VARIANTS = ("method", "inplace")
POLICIES = {"lower": "Lower", "fp32": "Fp32", "promote": "Promote", "same": "Same", "banned": "Banned"}
NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
ALIAS = re.compile(r"^([a-z_][a-z0-9_]*)(?:\[([a-z_ ]*)\])?$")


class SchemaError(ValueError):
    """A malformed schema: the message names the file, the line and what to write instead."""


class Op:
    def __init__(self, kind, name, line):
        self.kind, self.name, self.line = kind, name, line
        self.fields = {}

    # the parsed facts, set by _finish
    functor = rule = grad = None
    variants = ()
    aliases = ()  # (name, variants) pairs
    autocast = None  # (cuda policy, cpu policy)
    own_binding = False

    def spellings(self):
        """(name, variants) for the op's own name and each alias."""
        return [(self.name, self.variants)] + list(self.aliases)

    def saves_result(self):
        return self.grad is not None and re.search(r"\bresult\b", self.grad) is not None


def parse(text, path=SCHEMA):
    """The ops of a schema text, in order; raises SchemaError for anything malformed."""
    ops, cur = [], None

    def fail(lineno, msg):
        raise SchemaError(f"{path}:{lineno}: {msg}")

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            words = line.split()
            if len(words) != 2 or words[0] not in KINDS:
                fail(lineno, f"expected '<kind> <name>' with kind one of {', '.join(KINDS)}, got {line!r}")
            if not NAME.match(words[1]):
                fail(lineno, f"op name {words[1]!r} must be lower_snake_case")
            cur = Op(words[0], words[1], lineno)
            ops.append(cur)
            continue
        if cur is None:
            fail(lineno, "an indented 'key: value' line before any op")
        key, sep, value = line.strip().partition(":")
        key, value = key.strip(), value.strip()
        if not sep or key not in KEYS:
            fail(lineno, f"unknown key {key!r} for op {cur.name!r}; keys are {', '.join(sorted(KEYS))}")
        if key in cur.fields:
            fail(lineno, f"op {cur.name!r} sets {key!r} twice")
        cur.fields[key] = (value, lineno)
    for op in ops:
        _finish(op, fail)
    seen = {}
    for op in ops:
        for name, _ in op.spellings():
            if name in seen:
                fail(op.line, f"{op.kind} {op.name!r}: the name {name!r} is already used by {seen[name]!r}")
            seen[name] = op.name
    return ops


def _finish(op, fail):
    def get(key, required=False):
        if key not in op.fields:
            if required:
                fail(op.line, f"{op.kind} {op.name!r} needs '{key}:'")
            return None, op.line
        return op.fields[key]

    functor, lineno = get("functor", required=True)
    if not re.match(r"^[A-Z][A-Za-z0-9]*$", functor):
        fail(lineno, f"functor {functor!r} must be a CamelCase name from kernels/functors.h")
    op.functor = functor
    rule, lineno = get("dtype", required=True)
    if rule not in RULES[op.kind]:
        fail(lineno, f"dtype rule {rule!r} is not one of {', '.join(RULES[op.kind])} for a {op.kind} op")
    op.rule = RULES[op.kind][rule]
    variants, lineno = get("variants")
    op.variants = _variants(variants, lineno, fail) if variants is not None else DEFAULT_VARIANTS
    aliases, lineno = get("aliases")
    op.aliases = []
    for item in split_aliases(aliases or ""):
        m = ALIAS.match(item)
        if not m:
            fail(lineno, f"alias {item!r}: write name or name[variants]")
        own = _variants(m.group(2), lineno, fail) if m.group(2) is not None else op.variants
        op.aliases.append((m.group(1), own))
    autocast, lineno = get("autocast")
    if autocast is not None:
        words = autocast.split()
        if len(words) != 2 or any(w not in POLICIES for w in words):
            fail(
                lineno,
                f"autocast takes two policies (CUDA, CPU) from {', '.join(POLICIES)}, got {autocast!r}",
            )
        op.autocast = (POLICIES[words[0]], POLICIES[words[1]])
    grad, lineno = get("grad", required=op.kind == "unary")
    if op.kind == "binary" and grad is not None:
        fail(lineno, "binary formulas live in derivatives.cpp's binary_formula for now; drop 'grad:'")
    if grad is not None and grad != "none":
        if re.search(r"\bresult\b", grad) and re.search(r"\bself\b", grad):
            fail(lineno, f"{op.name!r}: a formula reads self or result, not both (the node saves one)")
        if grad.count("(") != grad.count(")"):
            fail(lineno, f"{op.name!r}: unbalanced parentheses in the formula")
        op.grad = grad
    binding, lineno = get("binding")
    if binding not in (None, "own"):
        fail(lineno, f"binding takes only 'own', got {binding!r}")
    op.own_binding = binding == "own"


def split_aliases(word):
    # "divide true_divide" -> two aliases; "absolute[method out]" stays one
    out, depth, cur = [], 0, ""
    for ch in word:
        depth += ch == "["
        depth -= ch == "]"
        if ch == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def _variants(value, lineno, fail):
    words = value.split()
    for w in words:
        if w not in VARIANTS:
            fail(lineno, f"unknown variant {w!r}; variants are {', '.join(VARIANTS)}")
    return tuple(w for w in VARIANTS if w in words)


def load(path=SCHEMA):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


# ---------------------------------------------------------------- the generated text

HEADER = "// Generated by scripts/gen_ops.py from csrc/ops/ops.schema: edit the schema, not this file.\n"


def _c(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _macro(name, rows, doc):
    body = "".join(f" \\\n  _({', '.join(r)})" for r in rows)
    return f"// {doc}\n#define {name}(_){body}\n"


def ops_header(ops):
    out = [HEADER, "#pragma once\n\n"]
    for kind, enum in (("unary", "UnaryOp"), ("binary", "BinaryOp")):
        mine = [op for op in ops if op.kind == kind]
        K = kind.upper()
        out.append(
            _macro(f"MT_{K}_OPS", [(o.name, o.functor, o.rule) for o in mine], "(name, functor, rule)")
        )
        spell = []
        for o in mine:
            for name, variants in o.spellings():
                flags = [str(int(v in variants)) for v in VARIANTS]
                spell.append((_c(name), o.name, str(int(o.own_binding)), *flags))
        out.append(
            _macro(
                f"MT_{K}_SPELLINGS",
                spell,
                "(Python name, op, own binding, method, Tensor.<name>_, out=, minitorch.<name>_)",
            )
        )
        out.append(
            _macro(
                f"MT_{K}_AUTOCAST",
                [(o.name,) for o in mine if o.autocast],
                f"the {kind} ops autocast touches, each an autocast::Op of the same name",
            )
        )
    out.append(
        _macro(
            "MT_SCHEMA_AUTOCAST_OPS",
            [(o.name, *o.autocast) for o in ops if o.autocast],
            "rows of ops/autocast.h's MT_AUTOCAST_OPS: (op, policy on CUDA, policy on the CPU)",
        )
    )
    rows = []
    for o in ops:
        aliases = " ".join(n + ("" if v == o.variants else "[" + " ".join(v) + "]") for n, v in o.aliases)
        rows.append(
            (
                _c(o.kind),
                _c(o.name),
                _c(o.functor),
                _c(o.rule),
                _c(" ".join(o.variants)),
                _c(aliases),
                _c(" ".join(o.autocast or ())),
                _c(o.grad or ""),
            )
        )
    out.append(
        _macro(
            "MT_SCHEMA_ROWS",
            rows,
            "every op as declared, for minitorch._C._op_schema(): "
            "(kind, name, functor, rule, variants, aliases, autocast, grad)",
        )
    )
    return "".join(out)


def unary_grad_inc(ops):
    unary = [op for op in ops if op.kind == "unary"]
    lines = [
        HEADER,
        "// Included by csrc/autograd/derivatives.cpp, whose helpers (S, fmask, kPi, *_grad) the formulas use.\n",
        "Tensor unary_grad(UnaryOp op, const Tensor& grad, const Tensor& self, const Tensor& result) {\n",
        "  using mt::add;\n  using mt::div;\n  using mt::mul;\n  using mt::sub;\n",
        "  switch (op) {\n",
    ]
    for op in unary:
        if op.grad:
            lines.append(f"    case UnaryOp::{op.name}:\n      return {op.grad};\n")
    dead = [op.name for op in unary if not op.grad]
    for name in dead:
        lines.append(f"    case UnaryOp::{name}:\n")
    if dead:
        lines.append("      break;  // not differentiable\n")
    lines.append("  }\n")
    lines.append('  MT_ERROR("the derivative for \'", unary_name(op), "\' is not implemented.");\n}\n\n')
    lines.append("// Whether the node saves the input (else the result): what the formula reads.\n")
    lines.append("bool unary_saves_input(UnaryOp op) {\n  switch (op) {\n")
    for op in unary:
        if op.saves_result():
            lines.append(f"    case UnaryOp::{op.name}:\n")
    lines.append("      return false;\n    default:\n      return true;\n  }\n}\n")
    return "".join(lines)


def outputs(ops):
    return {"ops_schema.h": ops_header(ops), "unary_grad.inc": unary_grad_inc(ops)}


def write(out_dir, ops):
    target = os.path.join(out_dir, "generated")
    os.makedirs(target, exist_ok=True)
    for name, text in outputs(ops).items():
        path = os.path.join(target, name)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except FileNotFoundError:
            pass
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        ops = load()
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    write(argv[1], ops)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
