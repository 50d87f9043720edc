"""torch.utils.flop_counter: FlopCounterMode counts the floating-point operations of matrix products,
convolutions and attention run inside it, per module of the call hierarchy, with PyTorch's formulas and keys.

PyTorch sees every ATen op in its dispatcher, backward ones included. Ours are called from Python, so while a
FlopCounterMode is active (as the profiler does) it wraps the torch functions and Tensor methods that compute
these ops: torch.mm/addmm/bmm/baddbmm/matmul/einsum and their Tensor methods and `@`, F.linear, F.conv*d,
F.conv_transpose*d and F.scaled_dot_product_attention, and nn.Module.__call__ to know the module hierarchy. A call
is keyed as the ATen op PyTorch runs for it on the CPU: matmul as mm or bmm (matrix-vector products are not
counted, as PyTorch's mv and dot are not), F.linear as addmm (with a bias, 2-D or contiguous 3-D input) or mm,
convolutions as convolution, attention as the bmm's of the math kernel, einsum of two operands as one bmm.
A call made inside another counted call (F.conv3d composing conv2d) is not counted again.

Backward: our backward runs in C++, out of sight, so each counted forward call whose output requires grad puts
a hook on that output; when backward reaches it (while the mode is still active) the backward ops are counted
from the forward's shapes and which inputs require grad, with PyTorch's formulas (mm/bmm: one product of the
forward's size per input needing a gradient; convolution_backward: PyTorch's grad-input and grad-weight
formulas), under the modules that ran the forward. Functions bound to a name before the mode started
(`from torch import mm`) are not seen.
"""

import math
import sys
import threading
import warnings
from collections import defaultdict

from minitorch import _C
from minitorch._library.ops import ops as _ops
from minitorch.nn.modules.module import Module

__all__ = ["FlopCounterMode", "register_flop_formula"]

suffixes = ["", "K", "M", "B", "T"]

_state = threading.local()
_active_modes = []
_patched = []
_orig_module_call = None


def _aten(name):
    return _ops.aten._mt_packet(name)


def get_suffix_str(number):
    """The suffix (K, M, B, T) PyTorch's table prints a total with."""
    index = max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))
    return suffixes[index]


def convert_num_with_suffix(number, suffix):
    """number in units of suffix, three decimals."""
    index = suffixes.index(suffix)
    return f"{number / 1000**index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom):
    """num/denom as a percentage with two decimals."""
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"


# ---- PyTorch's formulas (shapes in, flops out)


def mm_flop(a_shape, b_shape):
    """(m, k) @ (k, n): 2mnk."""
    m, k = a_shape
    n = b_shape[1]
    return m * n * 2 * k


def bmm_flop(a_shape, b_shape):
    """(b, m, k) @ (b, k, n): 2bmnk."""
    b, m, k = a_shape
    _, _, n = b_shape
    return b * m * n * 2 * k


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """PyTorch's convolution count: 2 * batch * (output spatial size, or the input's when transposed) * c_out *
    c_in (the weight's dims 0 and 1) * kernel size."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return math.prod(conv_shape) * math.prod(filter_size) * batch_size * c_out * c_in * 2


def conv_backward_flop(grad_out_shape, x_shape, w_shape, transposed, output_mask):
    """PyTorch's convolution_backward count: grad-input and grad-weight, each as a convolution."""

    def t(shape):
        return [shape[1], shape[0], *shape[2:]]

    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, x_shape, not transposed)
    if output_mask[1]:
        if transposed:
            flops += conv_flop_count(t(grad_out_shape), t(x_shape), t(w_shape), transposed=False)
        else:
            flops += conv_flop_count(t(x_shape), t(grad_out_shape), t(w_shape), transposed=False)
    return flops


def sdpa_flop_count(query_shape, key_shape, value_shape):
    """q @ k^T and attn @ v, as bmm's over batch * heads."""
    b, h, s_q, d_q = query_shape
    s_k = key_shape[-2]
    d_v = value_shape[-1]
    return bmm_flop((b * h, s_q, d_q), (b * h, d_q, s_k)) + bmm_flop((b * h, s_q, s_k), (b * h, s_k, d_v))


def sdpa_backward_flop_count(query_shape, key_shape, value_shape, needs):
    """The bmm's of the math kernel's backward for the inputs needing gradients (q, k, v)."""
    b, h, s_q, d_q = query_shape
    s_k = key_shape[-2]
    d_v = value_shape[-1]
    bh = b * h
    flops = 0
    if needs[0] or needs[1]:
        flops += bmm_flop((bh, s_q, d_v), (bh, d_v, s_k))  # grad of the attention weights
    if needs[2]:
        flops += bmm_flop((bh, s_k, s_q), (bh, s_q, d_v))  # grad v
    if needs[0]:
        flops += bmm_flop((bh, s_q, s_k), (bh, s_k, d_q))  # grad q
    if needs[1]:
        flops += bmm_flop((bh, s_k, s_q), (bh, s_q, d_q))  # grad k
    return flops


# ---- what each wrapped call counts: [(aten name, forward flops, backward flops per input needing grad)]


def _rg(t):
    return _C._is_tensor(t) and t.requires_grad


def _should_fold(a, b):
    """Whether torch.matmul folds the larger operand into a matrix (mm/mv) rather than batching (bmm): PyTorch's
    should_fold, which folds when the smaller operand requires grad, or when the larger folds without a copy."""
    larger = a.dim() >= b.dim()
    big, small = (a, b) if larger else (b, a)
    if not (big.dim() >= 3 and small.dim() <= 2):
        return False
    if small.requires_grad:
        return True
    if a.dim() == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = list(big.shape), list(big.stride())
    if not larger:  # the larger operand is folded transposed
        shape[-1], shape[-2] = shape[-2], shape[-1]
        strides[-1], strides[-2] = strides[-2], strides[-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.dim() - 1))


def _matmul_plan(a, b):
    """(aten name, flops) of torch.matmul as PyTorch decomposes it (None for mv/dot, which are not counted)."""
    da, db = a.dim(), b.dim()
    if da == 0 or db == 0:
        return None
    k = a.shape[-1]
    batch = _broadcast(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    out_numel = math.prod(batch) * (a.shape[-2] if da >= 2 else 1) * (b.shape[-1] if db >= 2 else 1)
    flops = 2 * k * out_numel
    if da <= 2 and db <= 2:
        return ("mm", flops) if db == 2 else None  # mv and dot are not counted
    if _should_fold(a, b):
        small = b if da >= db else a
        return ("mm", flops) if small.dim() == 2 else None  # folded onto mv
    return "bmm", flops


def _broadcast(s1, s2):
    n = max(len(s1), len(s2))
    s1 = (1,) * (n - len(s1)) + s1
    s2 = (1,) * (n - len(s2)) + s2
    return tuple(max(x, y) for x, y in zip(s1, s2))


def _product(name, flops, operands):
    """A product counted once forward and once backward for each operand needing a gradient."""
    bw = flops * sum(1 for t in operands if _rg(t))
    return [(name, flops, name, bw)]


def _plan_mm(args, kwargs):
    a, b = args[0], args[1]
    return _product("mm", mm_flop(tuple(a.shape), tuple(b.shape)), (a, b))


def _plan_addmm(args, kwargs):
    a, b = args[1], args[2]
    f = mm_flop(tuple(a.shape), tuple(b.shape))
    return [("addmm", f, "mm", f * sum(map(_rg, (a, b))))]


def _plan_bmm(args, kwargs):
    a, b = args[0], args[1]
    return _product("bmm", bmm_flop(tuple(a.shape), tuple(b.shape)), (a, b))


def _plan_baddbmm(args, kwargs):
    a, b = args[1], args[2]
    f = bmm_flop(tuple(a.shape), tuple(b.shape))
    return [("baddbmm", f, "bmm", f * sum(map(_rg, (a, b))))]


def _plan_matmul(args, kwargs):
    a, b = args[0], args[1] if len(args) > 1 else kwargs.get("other")
    if not (_C._is_tensor(a) and _C._is_tensor(b)):
        return []
    plan = _matmul_plan(a, b)
    if plan is None:
        return []
    return _product(plan[0], plan[1], (a, b))


def _plan_rmatmul(args, kwargs):
    return _plan_matmul((args[1], args[0]), {})


def _plan_linear(args, kwargs):
    x = args[0]
    w = args[1] if len(args) > 1 else kwargs.get("weight")
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    if x.dim() == 0 or w.dim() != 2:
        return []
    if bias is not None and (x.dim() == 2 or (x.dim() == 3 and x.is_contiguous())):
        # aten::linear's addmm (a contiguous 3-D input is flattened into it)
        f = 2 * math.prod(x.shape[:-1]) * w.shape[0] * w.shape[1]
        return [("addmm", f, "mm", f * sum(map(_rg, (x, w))))]
    return _plan_matmul((x, w.t()), {})  # otherwise matmul(x, w.t()) (+ bias)


def _conv_plan(transposed):
    def plan(args, kwargs):
        x = args[0]
        w = args[1] if len(args) > 1 else kwargs["weight"]
        return [("convolution", transposed, x, w)]

    return plan


def _plan_sdpa(args, kwargs):
    q, k, v = (
        args[0],
        args[1] if len(args) > 1 else kwargs["key"],
        args[2] if len(args) > 2 else kwargs["value"],
    )
    if q.dim() < 3:
        return []
    qs, ks, vs = (tuple(t.shape) for t in (q, k, v))
    if q.dim() == 3:
        qs, ks, vs = (1, *qs), (1, *ks), (1, *vs)
    elif q.dim() > 4:
        qs, ks, vs = ((math.prod(s[:-3]) * s[-3], *s[-2:]) for s in (qs, ks, vs))
        qs, ks, vs = (1, *qs), (1, *ks), (1, *vs)
    f = sdpa_flop_count(qs, ks, vs)
    return [("bmm", f, "bmm", sdpa_backward_flop_count(qs, ks, vs, (_rg(q), _rg(k), _rg(v))))]


def _plan_einsum(args, kwargs):
    if not args or not isinstance(args[0], str):
        return []
    eq = args[0].replace(" ", "")
    operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if len(operands) != 2 or "..." in eq or "->" not in eq:
        return []
    lhs, out = eq.split("->")
    sa, sb = lhs.split(",")
    sizes = {}
    for sub, t in zip((sa, sb), operands):
        for c, n in zip(sub, t.shape):
            sizes[c] = n
    # indices only one operand has, and the output lacks, are summed before the product
    keep = [c for c in sizes if (c in sa and c in sb) or c in out]
    f = 2 * math.prod(sizes[c] for c in keep)
    return _product("bmm", f, operands)


_TORCH_FUNCS = {
    "mm": _plan_mm,
    "addmm": _plan_addmm,
    "bmm": _plan_bmm,
    "baddbmm": _plan_baddbmm,
    "matmul": _plan_matmul,
    "einsum": _plan_einsum,
    "conv1d": _conv_plan(False),
    "conv2d": _conv_plan(False),
    "conv3d": _conv_plan(False),
    "conv_transpose1d": _conv_plan(True),
    "conv_transpose2d": _conv_plan(True),
    "conv_transpose3d": _conv_plan(True),
}
_F_FUNCS = {
    "linear": _plan_linear,
    "scaled_dot_product_attention": _plan_sdpa,
    **{k: v for k, v in _TORCH_FUNCS.items() if k.startswith("conv")},
}
_METHODS = {
    "mm": _plan_mm,
    "bmm": _plan_bmm,
    "matmul": _plan_matmul,
    "__matmul__": _plan_matmul,
    "__rmatmul__": _plan_rmatmul,
    # Tensor.addmm(self, mat1, mat2) has torch.addmm's argument positions
    "addmm": _plan_addmm,
    "baddbmm": _plan_baddbmm,
}


def _resolve_conv(entry, out):
    """A convolution's (name, forward, backward name, backward flops) once its output shape is known."""
    _, transposed, x, w = entry
    xs, ws, os_ = tuple(x.shape), tuple(w.shape), tuple(out.shape)
    if x.dim() == w.dim() - 1:  # an unbatched input is run as a batch of one
        xs, os_ = (1, *xs), (1, *os_)
    f = conv_flop_count(xs, ws, os_, transposed)
    bw = conv_backward_flop(os_, xs, ws, transposed, (_rg(x), _rg(w)))
    return ("convolution", f, "convolution_backward", bw)


def _wrap(original, plan):
    def wrapped(*args, **kwargs):
        if getattr(_state, "inside", False) or not _active_modes:
            return original(*args, **kwargs)
        _state.inside = True
        try:
            out = original(*args, **kwargs)
        finally:
            _state.inside = False
        try:
            entries = plan(args, kwargs)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            entries = []  # arguments the formulas do not cover (the op itself accepted them)
        for entry in entries:
            if entry[0] == "convolution" and len(entry) == 4 and isinstance(entry[1], bool):
                entry = _resolve_conv(entry, out)
            for mode in _active_modes:
                mode._record(entry, out)
        return out

    wrapped.__wrapped__ = original
    wrapped._mt_flop_wrapped = True
    for attr in ("__name__", "__qualname__", "__doc__", "_mt_public_name"):
        val = getattr(original, attr, None)
        if val is not None:
            try:
                setattr(wrapped, attr, val)
            except (AttributeError, TypeError):
                pass
    return wrapped


def _owners(modname):
    mod = sys.modules.get(modname)
    if mod is None:
        return []
    return [mod, *getattr(mod, "_FAMILY_MODULES", ())]


def _install():
    global _orig_module_call
    targets = []
    for modname, table in (("minitorch", _TORCH_FUNCS), ("minitorch.nn.functional", _F_FUNCS)):
        owners = _owners(modname)
        for attr, plan in table.items():
            obj = getattr(owners[0], attr, None) if owners else None
            if obj is None:
                continue
            for owner in owners:
                if vars(owner).get(attr) is obj:
                    targets.append((owner, attr, obj, plan))
    for attr, plan in _METHODS.items():
        obj = vars(_C.Tensor).get(attr)
        if obj is not None:
            targets.append((_C.Tensor, attr, obj, plan))
    wrappers = {}
    for owner, attr, obj, plan in targets:
        if getattr(obj, "_mt_flop_wrapped", False):
            continue
        w = wrappers.get((id(obj), id(plan)))
        if w is None:
            w = wrappers[(id(obj), id(plan))] = _wrap(obj, plan)
        _patched.append((owner, attr, obj, w))
        setattr(owner, attr, w)
    _orig_module_call = Module.__call__

    def module_call(mod, *args, **kwargs):
        if not _active_modes:
            return _orig_module_call(mod, *args, **kwargs)
        for mode in _active_modes:
            mode._enter_module(mod)
        try:
            return _orig_module_call(mod, *args, **kwargs)
        finally:
            for mode in _active_modes:
                mode._exit_module()

    _patched.append((Module, "__call__", _orig_module_call, module_call))
    Module.__call__ = module_call


def _uninstall():
    while _patched:
        owner, attr, original, wrapper = _patched.pop()
        if vars(owner).get(attr) is wrapper:
            setattr(owner, attr, original)


_install_lock = threading.Lock()


class FlopCounterMode:
    """``with FlopCounterMode(display=False) as fc: model(x)`` then ``fc.get_total_flops()`` and
    ``fc.get_flop_counts()`` ({"Global" or module name: {aten op: flops}}); display prints the table of
    modules down to depth on exit. See the module's docstring for what is counted and how."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None, skip_unsupported=False):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.skip_unsupported = skip_unsupported
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        if custom_mapping:
            raise NotImplementedError(
                "FlopCounterMode(custom_mapping=...): minitorch counts a fixed set of ops (see "
                "minitorch.utils.flop_counter's docstring)"
            )
        self._names = {}  # id(module) -> hierarchical name
        self._stack = []
        self._entered = False

    # ---- the module hierarchy (PyTorch's ModuleTracker naming: the outermost module is its class name)
    def _enter_module(self, mod):
        name = self._names.get(id(mod))
        if name is None:
            name = self._names[id(mod)] = type(mod).__name__
        for child_name, child in mod.named_children():
            self._names.setdefault(id(child), f"{name}.{child_name}")
        self._stack.append(name)

    def _exit_module(self):
        self._stack.pop()

    def _parents(self):
        return ["Global", *dict.fromkeys(self._stack)]

    def _record(self, entry, out):
        name, flops, bw_name, bw_flops = entry
        parents = self._parents()
        key = _aten(name)
        for p in parents:
            self.flop_counts[p][key] += flops
        if bw_flops and _C.is_grad_enabled() and _C._is_tensor(out) and out.requires_grad:
            bw_key = _aten(bw_name)

            def on_backward(grad, parents=parents, bw_key=bw_key, bw_flops=bw_flops):
                if self in _active_modes:
                    for p in parents:
                        self.flop_counts[p][bw_key] += bw_flops

            out.register_hook(on_backward)

    # ---- results
    def get_total_flops(self):
        """All the flops counted (the "Global" entry)."""
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self):
        """{module name or "Global": {aten op packet: flops}}."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """The table PyTorch prints: each module down to depth, its flops and share, then its ops."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        subsumed = False

        def process(mod_name, d):
            nonlocal subsumed
            total = sum(self.flop_counts[mod_name].values())
            subsumed |= total >= global_flops
            pad = " " * d
            rows = [[pad + mod_name, convert_num_with_suffix(total, global_suffix), convert_to_percent_str(total, global_flops)]]  # fmt: skip
            for k, v in self.flop_counts[mod_name].items():
                rows.append([pad + " - " + str(k), convert_num_with_suffix(v, global_suffix), convert_to_percent_str(v, global_flops)])  # fmt: skip
            return rows

        values = []
        for mod in sorted(self.flop_counts):
            if mod == "Global":
                continue
            d = mod.count(".") + 1
            if d > depth:
                continue
            values.extend(process(mod, d - 1))
        if "Global" in self.flop_counts and not subsumed:
            for v in values:
                v[0] = " " + v[0]
            values = process("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return _tabulate(values, ["Module", "FLOP", "% Total"])

    # ---- the extent
    def __enter__(self):
        if self._entered:
            raise RuntimeError("FlopCounterMode is not reentrant")
        self._entered = True
        self.flop_counts.clear()
        with _install_lock:
            if not _active_modes:
                _install()
            _active_modes.append(self)
        return self

    def __exit__(self, *exc):
        with _install_lock:
            if self in _active_modes:
                _active_modes.remove(self)
            if not _active_modes:
                _uninstall()
        self._entered = False
        if self.display:
            print(self.get_table(self.depth))
        return False


def _tabulate(rows, headers):
    """tabulate's "simple" format: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells):
        out = [str(cells[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join(out).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)])


def register_flop_formula(targets, get_raw=False):
    """PyTorch registers formulas for ATen ops; the ops minitorch counts are fixed (see the docstring)."""
    raise NotImplementedError(
        "register_flop_formula: minitorch counts a fixed set of ops (see minitorch.utils.flop_counter)"
    )
