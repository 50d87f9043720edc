"""C++ for a fused group: one loop computing every op of the group per element (values stay in registers),
writing only the group's outputs.

Three loop shapes:
- flat: every tensor has the group's shape (or one element): one loop over the n elements;
- rows: some inputs broadcast along the leading dims (a bias of the last dims' shape): loop over the rows of
  length d, those inputs indexed by the position in the row;
- layer_norm: one LayerNorm over the last dim (length d) with elementwise ops before it (its prologue) and after
  it (its epilogue): per row, pass 1 computes the prologue and the sum, pass 2 the variance from the row kept
  in a buffer, pass 3 normalizes and computes the epilogue.
Rows (or chunks of the flat loop) are split over threads; the inner loops carry ``#pragma omp simd``.
"""

import math
import os

__all__ = ["KernelSpec", "generate", "prelude"]

_CTYPE = {"float32": "float", "float64": "double", "bool": "bool"}
# elements per thread before a loop is split: threads are started per call, and a started thread can wait a
# scheduler slice for a core on a busy machine, so only work of about a millisecond or more is split
_FLAT_GRAIN = 1 << 19

_prelude = None


def prelude():
    """The text of prelude.h, included at the top of every generated file."""
    global _prelude
    if _prelude is None:
        with open(os.path.join(os.path.dirname(__file__), "prelude.h")) as f:
            _prelude = f.read()
    return _prelude


class KernelSpec:
    """What codegen needs of a group. inputs: list of (kind, dtype name) with kind "full", "row", "scalar";
    nodes: list of (var, Op name, operand refs, params) in order, an operand ref being ("in", k), ("var", v)
    or ("const", value); outputs: list of var; ln: the index in nodes of the layer_norm or None; dtype: the
    computation's dtype name."""

    def __init__(self, name, dtype, inputs, nodes, outputs, ln=None):
        self.name = name
        self.dtype = dtype
        self.inputs = inputs
        self.nodes = nodes
        self.outputs = outputs
        self.ln = ln

    @property
    def kind(self):
        """The loop shape: "flat", "rows" or "layer_norm"."""
        if self.ln is not None:
            return "layer_norm"
        return "rows" if any(k == "row" for k, _ in self.inputs) else "flat"


def _const(v, T):
    if isinstance(v, bool):
        return f"{T}({int(v)})"
    if isinstance(v, int):
        return f"{T}({v})"
    if math.isnan(v):
        return f"std::numeric_limits<{T}>::quiet_NaN()"
    if math.isinf(v):
        return f"{'-' if v < 0 else ''}std::numeric_limits<{T}>::infinity()"
    return f"static_cast<{T}>({v!r})"


def _pow(a, e, T):
    special = {
        0.0: f"{T}(1)",
        1.0: f"{a}",
        2.0: f"({a} * {a})",
        3.0: f"({a} * {a} * {a})",
        4.0: f"(({a} * {a}) * ({a} * {a}))",
        0.5: f"std::sqrt({a})",
        -0.5: f"({T}(1) / std::sqrt({a}))",
        -1.0: f"({T}(1) / {a})",
        -2.0: f"({T}(1) / ({a} * {a}))",
    }
    if e in special:
        return special[e]
    return f"std::pow({a}, {_const(e, T)})"


def _expr(name, a, params, T):
    """The C++ expression of op name on operand expressions a."""
    c = lambda v: _const(v, T)
    if name in ("add", "sub"):
        sign = "+" if name == "add" else "-"
        alpha = params.get("alpha", 1)
        rhs = a[1] if alpha == 1 else f"{c(alpha)} * {a[1]}"
        return f"({a[0]} {sign} {rhs})"
    if name == "mul":
        return f"({a[0]} * {a[1]})"
    if name == "div":
        return f"({a[0]} / {a[1]})"
    if name == "neg":
        return f"(-{a[0]})"
    if name == "pow":
        return _pow(a[0], params["exponent"], T)
    if name in ("exp", "log", "tanh", "erf", "sigmoid", "relu", "gelu", "gelu_tanh", "maximum", "minimum"):
        return f"mt::{name}({', '.join(a)})"
    if name == "silu":
        return f"({a[0]} / ({T}(1) + mt::exp(-{a[0]})))"
    if name == "sqrt":
        return f"std::sqrt({a[0]})"
    if name == "rsqrt":
        return f"({T}(1) / std::sqrt({a[0]}))"
    if name == "abs":
        return f"std::fabs({a[0]})"
    if name == "square":
        return f"({a[0]} * {a[0]})"
    if name == "reciprocal":
        return f"({T}(1) / {a[0]})"
    if name == "leaky_relu":
        return f"({a[0]} > {T}(0) ? {a[0]} : {a[0]} * {c(params['negative_slope'])})"
    if name == "clamp":
        out = a[0]
        if params.get("min") is not None:
            out = f"mt::clamp_lo({out}, {c(params['min'])})"
        if params.get("max") is not None:
            out = f"mt::clamp_hi({out}, {c(params['max'])})"
        return out
    if name == "where":
        return f"({a[0]} ? {a[1]} : {a[2]})"
    if name == "identity":
        return a[0]
    raise NotImplementedError(name)


def _signature(spec):
    T = _CTYPE[spec.dtype]
    params = [f"const {_CTYPE[dt]}* __restrict in{k}" for k, (_, dt) in enumerate(spec.inputs)]
    params += [f"{T}* __restrict out{k}" for k in range(len(spec.outputs))]
    params += ["int64_t n", "int64_t d", "int nthreads"]
    return f'extern "C" void {spec.name}({", ".join(params)})'


def _operand(ref, spec, T, load):
    """The expression for an operand ref: load(k) gives the element of input k for this loop shape."""
    kind, v = ref
    if kind == "in":
        return f"s{v}" if spec.inputs[v][0] == "scalar" else load(v)
    if kind == "var":
        return f"v{v}"
    return _const(v, T)


def _scalar_loads(spec, indent):
    lines = []
    for k, (kind, dt) in enumerate(spec.inputs):
        if kind == "scalar":
            lines.append(f"{indent}const {_CTYPE[dt]} s{k} = in{k}[0];")
    return lines


def _body(spec, T, load, indent, nodes, var_expr=None):
    lines = []
    for var, name, refs, params in nodes:
        ops = [var_expr(r) if (var_expr and r[0] == "var") else _operand(r, spec, T, load) for r in refs]
        lines.append(f"{indent}const {T} v{var} = {_expr(name, ops, params, T)};")
    return lines


def _flat(spec, T):
    load = lambda k: f"in{k}[i]"
    lines = [_signature(spec) + " {"]
    lines.append(f"  mt::parallel(n, {_FLAT_GRAIN}, nthreads, [&](int64_t begin, int64_t end) {{")
    lines += _scalar_loads(spec, "    ")
    lines.append("#pragma omp simd")
    lines.append("    for (int64_t i = begin; i < end; ++i) {")
    lines += _body(spec, T, load, "      ", spec.nodes)
    lines += [f"      out{k}[i] = v{var};" for k, var in enumerate(spec.outputs)]
    lines += ["    }", "  });", "}"]
    return lines


def _row_load(spec):
    return lambda k: f"in{k}[j]" if spec.inputs[k][0] == "row" else f"in{k}[r * d + j]"


def _rows(spec, T):
    load = _row_load(spec)
    lines = [_signature(spec) + " {"]
    lines.append("  const int64_t rows = d > 0 ? n / d : 0;")
    lines.append(f"  const int64_t grain = d > 0 ? ({_FLAT_GRAIN} + d - 1) / d : 1;")
    lines.append("  mt::parallel(rows, grain, nthreads, [&](int64_t rb, int64_t re) {")
    lines += _scalar_loads(spec, "    ")
    lines.append("    for (int64_t r = rb; r < re; ++r) {")
    lines.append("#pragma omp simd")
    lines.append("      for (int64_t j = 0; j < d; ++j) {")
    lines += _body(spec, T, load, "        ", spec.nodes)
    lines += [f"        out{k}[r * d + j] = v{var};" for k, var in enumerate(spec.outputs)]
    lines += ["      }", "    }", "  });", "}"]
    return lines


def _layer_norm(spec, T):
    load = _row_load(spec)
    ln_var, _, ln_refs, ln_params = spec.nodes[spec.ln]
    x_ref, w_ref, b_ref = ln_refs
    # the prologue: the nodes the layer_norm input depends on
    deps = {}
    for var, _, refs, _ in spec.nodes:
        deps[var] = {r[1] for r in refs if r and r[0] == "var"}
    pro = set()
    stack = [x_ref[1]] if x_ref[0] == "var" else []
    while stack:
        v = stack.pop()
        if v not in pro:
            pro.add(v)
            stack.extend(deps[v])
    prologue = [nd for nd in spec.nodes if nd[0] in pro]
    epilogue = [nd for nd in spec.nodes if nd[0] not in pro and nd[0] != ln_var]
    out_of = {var: k for k, var in enumerate(spec.outputs)}
    # prologue values read again in pass 3 live in a row: the output row when the value is an output, else a
    # per-thread buffer
    kept = set()
    for var, _, refs, _ in epilogue:
        kept |= {r[1] for r in refs if r[0] == "var" and r[1] in pro}
    x_var = x_ref[1] if x_ref[0] == "var" else None
    if x_var is not None:
        kept.add(x_var)
    buffers = [v for v in sorted(kept) if v not in out_of]

    def row_of(v):
        return f"out{out_of[v]}r" if v in out_of else f"buf{v}"

    lines = [_signature(spec) + " {"]
    lines.append("  const int64_t rows = d > 0 ? n / d : 0;")
    lines.append(f"  const int64_t grain = d > 0 ? ({_FLAT_GRAIN} + d - 1) / d : 1;")
    lines.append(f"  const {T} eps = {_const(ln_params['eps'], T)};")
    lines.append("  mt::parallel(rows, grain, nthreads, [&](int64_t rb, int64_t re) {")
    lines += _scalar_loads(spec, "    ")
    if buffers:
        lines.append(f"    std::vector<{T}> scratch(static_cast<size_t>(d) * {len(buffers)});")
        for i, v in enumerate(buffers):
            lines.append(f"    {T}* buf{v} = scratch.data() + static_cast<size_t>(d) * {i};")
    lines.append("    for (int64_t r = rb; r < re; ++r) {")
    for k in range(len(spec.outputs)):
        lines.append(f"      {T}* out{k}r = out{k} + r * d;")
    if x_var is None:  # the layer_norm reads an input directly
        x_row = f"(in{x_ref[1]} + r * d)"
    else:
        x_row = row_of(x_var)
    # pass 1: prologue, its kept values, the sum
    lines.append(f"      {T} sum = 0;")
    lines.append("#pragma omp simd reduction(+ : sum)")
    lines.append("      for (int64_t j = 0; j < d; ++j) {")
    lines += _body(spec, T, load, "        ", prologue)
    for v in sorted(kept | {var for var, *_ in prologue if var in out_of}):
        lines.append(f"        {row_of(v)}[j] = v{v};")
    lines.append(f"        sum += {'v' + str(x_var) if x_var is not None else x_row + '[j]'};")
    lines.append("      }")
    lines.append(f"      const {T} mean = sum / static_cast<{T}>(d);")
    lines.append(f"      {T} sq = 0;")
    lines.append("#pragma omp simd reduction(+ : sq)")
    lines.append("      for (int64_t j = 0; j < d; ++j) {")
    lines.append(f"        const {T} t = {x_row}[j] - mean;")
    lines.append("        sq += t * t;")
    lines.append("      }")
    lines.append(f"      const {T} rstd = {T}(1) / std::sqrt(sq / static_cast<{T}>(d) + eps);")
    # pass 3: normalize, epilogue, outputs
    lines.append("#pragma omp simd")
    lines.append("      for (int64_t j = 0; j < d; ++j) {")
    norm = f"({x_row}[j] - mean) * rstd"
    if w_ref is not None:
        norm = f"{norm} * {_operand(w_ref, spec, T, load)}"
    if b_ref is not None:
        norm = f"{norm} + {_operand(b_ref, spec, T, load)}"
    lines.append(f"        const {T} v{ln_var} = {norm};")
    lines += _body(
        spec,
        T,
        load,
        "        ",
        epilogue,
        var_expr=lambda r: f"{row_of(r[1])}[j]" if r[1] in pro else f"v{r[1]}",
    )
    for k, var in enumerate(spec.outputs):
        if var not in pro:
            lines.append(f"        out{k}r[j] = v{var};")
    lines += ["      }", "    }", "  });", "}"]
    return lines


def generate(specs):
    """One C++ translation unit with a kernel per spec."""
    parts = [prelude(), ""]
    for spec in specs:
        T = _CTYPE[spec.dtype]
        kind = spec.kind
        fn = {"flat": _flat, "rows": _rows, "layer_norm": _layer_norm}[kind]
        ops = ", ".join(nd[1] for nd in spec.nodes)
        parts.append(f"// {spec.name}: {kind} loop over {spec.dtype}: {ops}")
        parts += fn(spec, T)
        parts.append("")
    return "\n".join(parts)
