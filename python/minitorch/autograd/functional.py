"""torch.autograd.functional: jacobian, hessian, vjp, jvp, vhp and hvp of a Python function.

vjp, vhp, hvp and the reverse-mode jacobian come from the reverse-mode engine (autograd.grad). jvp and the columns
of a "forward-mode" jacobian (all of them in one vmapped pass) use forward-mode AD (func/_forward_ad.py,
re-exported as autograd.forward_ad). With strict=True, jvp uses the double-vjp trick instead, as PyTorch's own
autograd.functional does, since strict mode inspects its intermediate results; hvp always does (as PyTorch's:
three passes of the C++ engine cost less than a forward through forward AD's Python dispatch): for u a dummy
cotangent that requires grad, g(u) = J^T u is linear in u, so the gradient of <g(u), v> with respect to u is J v.
That needs each backward formula on the way to be itself differentiable (create_graph=True), which ours are for
the ops with a recorded double backward.

Arguments, results and error messages follow PyTorch 2.15: inputs are a Tensor or a tuple of Tensors, results
mirror that structure, `strict=True` refuses outputs independent of an input instead of returning zeros, and
results are detached unless `create_graph=True`.
"""

import functools
import sys
import threading

from minitorch import _C
from minitorch.autograd.engine import grad as _grad
from minitorch.autograd.grad_mode import enable_grad, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


_calls = threading.local()  # depth: this module's functions running on this thread


def _public(fn):
    """PyTorch's autograd.functional calls requires_grad_() on its inputs, which a torch.func transform refuses:
    an outermost call while a transform runs raises those words (func sits above autograd: looked up). The calls
    it makes itself, inside the transforms it runs (the vectorized jacobian's vmap), are its own business."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        depth = getattr(_calls, "depth", 0)
        if depth == 0:
            bt = sys.modules.get("minitorch.func._batched")
            if bt is not None and bt.STATE.transform_depth:
                raise RuntimeError(bt.FUNCTORCH_REQUIRES_GRAD)
        _calls.depth = depth + 1
        try:
            return fn(*args, **kwargs)
        finally:
            _calls.depth = depth

    return call


def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tuple); anything but a Tensor or a tuple of Tensors is a TypeError."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not _C._is_tensor(el):
            where = f"the value at index {i} has type" if is_tuple else f"the given {arg_name} has type"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                f"{where} {type(el)}."
            )
    return is_tuple, items


def _unpack(res, was_tuple):
    """Undoes _as_tuple on a result: was_tuple is a bool, or (outer, inner) for the nested jacobian results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            res = tuple(el[0] for el in res)
        return res if outer else res[0]
    return res if was_tuple else res[0]


def _prepare(inputs, create_graph, need_graph):
    """Fresh differentiable stand-ins for the inputs: a view keeps the link to an input that already requires
    grad when the caller wants a differentiable result (create_graph), otherwise a detached copy of the data."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph):
    """Detaches results (nested tuples too) unless the caller asked for a differentiable graph."""
    if create_graph:
        return tensors
    if _C._is_tensor(tensors[0]):
        return tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _check_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got {a.size()}.")


_STRICT_WORDS = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
    "computed in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
    "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
    "that your function is twice differentiable and that the jacobian depends on the inputs (this would be "
    "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the "
    "input. This is not allowed in strict mode. You should ensure that your function is thrice "
    "differentiable and that the hessian depends on the inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is not allowed "
                "in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_STRICT_WORDS[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for each input when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(
        [o for o, _ in pairs],
        list(inputs),
        [g for _, g in pairs],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_ZERO_WORDS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
    "when using the double backward trick to compute forward mode gradients. This is not allowed in strict "
    "mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the double backward trick "
    "to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Replaces each None gradient by zeros shaped like its reference (an error under strict)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_WORDS[stage].format(i=i))
            g = _C.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed "
                "in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _prepare_v(v, refs, refs_is_tuple, create_graph, fn_name, v_none_words):
    if v is None:
        if len(refs) != 1 or refs[0].nelement() != 1:
            raise RuntimeError(v_none_words)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph=create_graph, need_graph=False)
    _check_v(v, refs, refs_is_tuple)
    return v


_V_NONE_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
    "single element."
)


@_public
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`; v may be omitted for a one-element
    output."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        outputs_is_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(
            v,
            outputs,
            outputs_is_tuple,
            create_graph,
            "vjp",
            "The vector v can only be None if the user-provided function returns a single Tensor with a "
            "single element.",
        )
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), inputs_is_tuple),
    )


def _double_vjp(outputs, inputs, v, create_graph, strict):
    """J v by the double-vjp trick: g(u) = J^T u is linear in the dummy cotangent u, and d<g(u), v>/du = J v."""
    with enable_grad():
        dummies = tuple(_C.zeros_like(o).requires_grad_(True) for o in outputs)
        g = _autograd_grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(g, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        res = _autograd_grad(g, dummies, v, create_graph=create_graph)
        return _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")


def _forward_jvp(func, inputs, v, create_graph):
    """(outputs were a tuple, outputs, J v) by forward-mode AD: one run of func on dual tensors."""
    from minitorch.autograd import forward_ad

    if v is None:
        v = tuple(_C.ones_like(i) for i in inputs)
    with forward_ad._nested_level() as level:
        duals = tuple(forward_ad._make(i, t, level) for i, t in zip(inputs, v))
        out = forward_ad._dispatching(func)(*duals)
        outputs_is_tuple, out = _as_tuple(out, "outputs of the user-provided function", "jvp")
        pairs = [forward_ad._split(o, level) for o in out]
    outputs = tuple(p for p, _ in pairs)
    res = tuple(_C.zeros_like(p) if t is None else t for p, t in pairs)
    if not create_graph:
        res = tuple(r.detach() for r in res)
    return outputs_is_tuple, outputs, res


@_public
def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product at `inputs`, by forward-mode AD (with strict=True, by the
    double-vjp trick, whose intermediate results strict mode inspects); v may be omitted for a one-element
    input."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_is_tuple, create_graph, "jvp", _V_NONE_INPUT)
        if not strict:
            outputs_is_tuple, outputs, res = _forward_jvp(func, inputs, v, create_graph)
        else:
            outputs = func(*inputs)
            outputs_is_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
            _check_requires_grad(outputs, "outputs", strict)
    if strict:
        res = _double_vjp(outputs, inputs, v, create_graph, strict)
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), outputs_is_tuple),
    )


def _jacobian_forward(func, inputs, strict, vectorize):
    """jacobian(strategy="forward-mode"): one Jacobian-vector product per input element (a column)."""
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # PyTorch's words, missing space included
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`."
        )
    from minitorch.autograd import forward_ad
    from minitorch.func._eager import forward_columns

    prepared = _prepare(inputs, create_graph=False, need_graph=False)
    box = {}

    def fn(*duals):
        out = forward_ad._dispatching(func)(*duals)
        box["is_tuple"], out = _as_tuple(out, "outputs", "jacobian")
        return list(out), None

    _, _, blocks = forward_columns(fn, list(prepared))
    outputs_is_tuple = box["is_tuple"]
    # lists, not tuples, where the inputs were a tuple: PyTorch's forward-mode jacobian (and so its forward-mode
    # hessian) returns them so
    jac = [[b.detach() for b in row] for row in blocks]
    return _unpack(jac, (outputs_is_tuple, inputs_is_tuple))


@_public
def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: for one input and one output a Tensor of shape out.shape + in.shape,
    else tuples (over outputs, then inputs) of them. `vectorize` is accepted and computes the same values."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)
    from minitorch.autograd import forward_ad

    if forward_ad.tree_has_dual(inputs):
        # reverse mode under forward mode (hessian's forward-over-reverse): the whole jacobian runs as one op on
        # the primals, its tangent from the double-vjp trick
        inner = lambda *a: jacobian(func, a if isinstance(inputs, tuple) else a[0], create_graph=True,
                                    strict=strict, vectorize=vectorize)  # fmt: skip
        return forward_ad.through_reverse(inner, inputs if isinstance(inputs, tuple) else (inputs,))
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        outputs_is_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                "together. Please either set `strict=False` or `vectorize=False`."
            )
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                vj = _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {j}. This "
                                "is not allowed in strict mode."
                            )
                        g = _C.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is "
                            "not allowed in strict mode when create_graph=True."
                        )
                    rows[j].append(g)
            jac.append(
                tuple(
                    _C.stack(r, 0).view(tuple(out.size()) + tuple(inp.size()))
                    if r
                    else _C.zeros(tuple(out.size()) + tuple(inp.size()), dtype=inp.dtype, device=inp.device)
                    for r, inp in zip(rows, inputs)
                )
            )
        jac = _finish(tuple(jac), create_graph)
        return _unpack(jac, (outputs_is_tuple, inputs_is_tuple))


@_public
def hessian(
    func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"
):
    """The Hessian of a function returning a one-element Tensor: the jacobian of its gradient (for tuple
    inputs, a tuple of tuples: block (i, j) has shape in_i.shape + in_j.shape)."""
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_is_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_is_tuple or not _C._is_tensor(out):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(res, (inputs_is_tuple, inputs_is_tuple))


def _scalar_function_outputs(func, inputs, name, strict):
    outputs = func(*inputs)
    outputs_is_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_is_tuple or not _C._is_tensor(outputs[0]):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    return outputs_is_tuple, outputs


@_public
def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vector-Hessian product of a function returning a one-element Tensor."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_is_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs_is_tuple, outputs = _scalar_function_outputs(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), inputs_is_tuple),
    )


@_public
def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the Hessian-vector product by PyTorch's double-backward trick (the gradient's vjp
    with zeros that require grad is linear in them, so its vjp with v is H v): three passes of the C++ engine,
    faster here than forward mode over reverse, whose forward runs through forward AD's Python dispatch
    (benchmarks/bench_hvp.py); equal to vhp for the symmetric Hessian of a twice continuously differentiable
    function."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_is_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs_is_tuple, outputs = _scalar_function_outputs(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        dummies = tuple(_C.zeros_like(inp).requires_grad_(True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        res = _autograd_grad(double_back, dummies, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), inputs_is_tuple),
    )
