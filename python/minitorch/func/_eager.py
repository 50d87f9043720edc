"""torch.func's differentiation transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize.

All of them run on the reverse-mode engine (autograd.grad). Each call makes fresh differentiable stand-ins for
the inputs it differentiates, runs the function, and asks the engine for the gradients of the outputs with
respect to those stand-ins only, so transforms nest (grad(grad(f)), jacrev(jacrev(f))): an inner transform
builds its backward graph (create_graph) whenever it runs inside another one, and the outer one
differentiates through it. Results also stay differentiable (as functorch's) when an input, or a tensor the
function closed over, requires grad with grad mode on; otherwise they come back detached.

Inside vmap (functorch's per-sample semantics): the stand-ins are made batched at every active vmap level
(an unbatched input is expanded, a view, so its gradient comes out per batch entry), the function runs once
on the whole batch, and the gradient of the *sum over the batch* of the per-entry outputs is taken. Batch
entries never mix (each batching rule keeps them apart), so the gradient of that sum with respect to entry
b's stand-in is exactly entry b's own gradient: `vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)` gives a
[B, *param.shape] gradient per parameter from one backward pass.

jvp uses the double-vjp trick, as PyTorch's autograd.functional does (minitorch has no forward-mode AD yet):
with u a dummy cotangent that requires grad, g(u) = J^T u is linear in u, and the gradient of <g(u), t> with
respect to u is J t. jacfwd builds its Jacobian column by column from such Jacobian-vector products when the
inputs are fewer than half the outputs, and otherwise row by row from vector-Jacobian products as jacrev does
(the values are the same either way; rows need one backward order less, which keeps hessian =
jacfwd(jacrev(f)) at second derivatives).
"""

import functools

from minitorch import _C
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.grad_mode import enable_grad
from minitorch.func._batched import STATE, BatchedTensor, call, enter_transform, exit_transform, stack_results
from minitorch.func._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp"]


def _is_tensor(x):
    return _C._is_tensor(x) or type(x) is BatchedTensor


# ------------------------------------------------------------------------------------ physical <-> batched


def to_physical(x, levels):
    """The plain tensor behind x with one leading dim per vmap level of `levels` (outermost first), expanded
    (a view) along the levels where x is not batched."""
    if not levels:
        return x
    inner = levels[-1]
    if type(x) is BatchedTensor and x._level == inner.id:
        return to_physical(x._value, levels[:-1])
    v = to_physical(x, levels[:-1])
    n = len(levels) - 1
    shape = tuple(v.shape)
    return v.unsqueeze(n).expand(shape[:n] + (inner.size,) + shape[n:])


def from_physical(p, levels):
    """The inverse of to_physical: p's leading dims (one per level of `levels`, outermost first) hidden again
    as nested BatchedTensors, the innermost level's wrapper on the outside (where dispatch looks first)."""
    for lv in levels:
        p = BatchedTensor(p, lv.id)
    return p


def _differentiable(flat, levels, create_graph):
    """(stand-ins on the engine, the same batched as the inputs were) for the inputs to differentiate."""
    leaves, wrapped = [], []
    for x in flat:
        if not _is_tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        p = to_physical(x, levels)
        leaf = p.view_as(p) if (create_graph and p.requires_grad) else p.detach().requires_grad_()
        leaves.append(leaf)
        wrapped.append(from_physical(leaf, levels))
    return leaves, wrapped


def _needs_graph(flat_inputs, levels, outer_grad):
    """Whether the results must stay differentiable: inside another transform, or for inputs that require
    grad (a caller differentiating through this transform with ordinary autograd, grad mode on)."""
    if STATE.grad_depth > 0:
        return True
    if not outer_grad:
        return False
    return any(_is_tensor(x) and to_physical(x, levels).requires_grad for x in flat_inputs)


def _reaches_outside(outputs, leaves):
    """Whether the outputs' graph reaches a tensor that requires grad other than our stand-ins (one the
    function closed over, such as a module parameter): the results then stay differentiable with respect to it,
    as functorch's do, for a caller's ordinary autograd."""
    mine = {id(leaf) for leaf in leaves}
    stack = []
    for o in outputs:
        if not o.requires_grad:
            continue
        if o.grad_fn is None:
            if id(o) not in mine:
                return True
        else:
            stack.append(o.grad_fn)
    seen, alive = set(), []
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        # kept alive so that an id is never reused, and the binding hands back this same wrapper for the node
        alive.append(fn)
        seen.add(id(fn))
        # only a leaf's AccumulateGrad has .variable; asking another node raises through C++ (~12 us a node)
        var = fn.variable if fn.name() == "torch::autograd::AccumulateGrad" else None
        if var is not None:
            if id(var) not in mine:
                return True
            continue
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return False


def _outer_grad_enabled():
    return STATE.grad_depth > 0 or _C.is_grad_enabled()


def _grads(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """autograd.grad over the outputs that require grad; zeros where an input does not reach them."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        res = _autograd_grad(
            [o for o, _ in pairs],
            list(inputs),
            [g for _, g in pairs],
            create_graph=create_graph,
            retain_graph=retain_graph,
            allow_unused=True,
        )
    else:
        res = [None] * len(inputs)
    return [_C.zeros_like(i) if g is None else g for g, i in zip(res, inputs)]


def _detach_tree(tree, keep):
    if keep:
        return tree
    return tree_map(lambda t: t.detach() if _is_tensor(t) else t, tree)


class _transform:
    """Counts a running forward transform (func.jvp, jacfwd): a user's autograd.Function checks its support."""

    def __enter__(self):
        enter_transform()

    def __exit__(self, *exc):
        exit_transform()


class _nested:
    """Counts a running transform (nested transforms keep their graphs)."""

    def __enter__(self):
        STATE.grad_depth += 1
        enter_transform()

    def __exit__(self, *exc):
        STATE.grad_depth -= 1
        exit_transform()


def _fwd_active(args):
    """Whether args hold dual tensors of an active forward AD level (a reverse transform then runs as one op
    whose tangent comes from the double-vjp trick: forward-over-reverse)."""
    from minitorch.func import _forward_ad as forward_ad

    return bool(forward_ad.STATE.levels) and forward_ad.tree_has_dual(args)


def _through_reverse(fn, args):
    from minitorch.func import _forward_ad as forward_ad

    with _nested():
        return forward_ad.through_reverse(fn, args)


# ------------------------------------------------------------------------------------ argnums


def _check_argnums(argnums, num_args):
    def one(a):
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")  # noqa: TRY004  (PyTorch's exception type)
        if 0 <= a < num_args:
            return a
        if -num_args <= a < 0:
            return a + num_args
        raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")

    if isinstance(argnums, int):
        return one(argnums)
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(one(a) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _slice_argnums(args, argnums, as_tuple=True):
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ------------------------------------------------------------------------------------ grad


def _grad_and_value_impl(func, argnums, has_aux, args, kwargs):
    levels = list(STATE.levels)
    outer_grad = _outer_grad_enabled()
    with enable_grad():
        diff = _slice_argnums(args, argnums, as_tuple=False)
        flat, spec = tree_flatten(diff)
        create_graph = _needs_graph(flat, levels, outer_grad)
        leaves, wrapped = _differentiable(flat, levels, create_graph)
        new_args = _replace_args(args, tree_unflatten(wrapped, spec), argnums)
        with _nested():
            output = func(*new_args, **kwargs)
        output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
        if not _is_tensor(output):
            raise RuntimeError(
                f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
            )
        if output.dim() != 0:
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        out = to_physical(output, levels)
        create_graph = create_graph or (outer_grad and _reaches_outside([out], leaves))
        # per-entry outputs are independent: the gradient of their sum is each entry's own gradient
        total = out.sum() if levels else out
        grads = _grads([total], leaves, [None], create_graph)
    if not create_graph:
        out = out.detach()
    grad_input = tree_unflatten([from_physical(g, levels) for g in grads], spec)
    value = from_physical(out, levels)
    if has_aux:
        return grad_input, (value, _detach_tree(aux, create_graph))
    return grad_input, value


def grad_and_value(func, argnums=0, has_aux=False):
    """Like grad, but the function returns (gradient, value) (with has_aux: (gradient, (value, aux)))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if _fwd_active(args):
            return _through_reverse(lambda *a: _grad_and_value_impl(func, argnums, has_aux, a, kwargs), args)
        return _grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """grad(f)(*args): the gradient of a function returning a one-element 0-dim Tensor, with respect to the
    positional arguments named by argnums (an int, or a tuple giving a tuple of gradients; an argument may be
    a tree of tensors). With has_aux, f returns (output, aux) and grad returns (gradient, aux)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if _fwd_active(args):
            return _through_reverse(lambda *a: wrapper(*a, **kwargs), args)
        g, value = _grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


# ------------------------------------------------------------------------------------ vjp


def _split_aux(output, has_aux, api):
    """(output, aux) of a function's result: with has_aux the result must be a pair."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    _check_aux(output[1])
    return output


def _check_aux(aux):
    """PyTorch's transforms unwrap every leaf of aux as a tensor: a number, None or string there is refused."""
    if isinstance(aux, (tuple, list)):
        for a in aux:
            _check_aux(a)
    elif isinstance(aux, dict):
        for a in aux.values():
            _check_aux(a)
    elif not _is_tensor(aux):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(aux)}")


def _check_outputs(flat_out, api, output):
    if len(flat_out) == 0:
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {output})"
        )
    for o in flat_out:
        if not _is_tensor(o):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}"
            )


def _vjp_impl(func, primals, argnums, has_aux):
    """(outputs, vjp_fn, aux) with vjp_fn giving the vector-Jacobian products for the primals at argnums (all
    when None)."""
    levels = list(STATE.levels)
    outer_grad = _outer_grad_enabled()
    with enable_grad():
        diff = primals if argnums is None else _slice_argnums(primals, argnums, as_tuple=False)
        flat, spec = tree_flatten(diff)
        create_graph = _needs_graph(flat, levels, outer_grad)
        leaves, wrapped = _differentiable(flat, levels, create_graph)
        new = tree_unflatten(wrapped, spec)
        args = new if argnums is None else _replace_args(primals, new, argnums)
        from minitorch.func import _forward_ad as fwd

        # a torch function passed itself (jacrev(torch.sin)) is called through its dispatching spelling: under
        # an enclosing vmap its arguments are BatchedTensors, which the builtin cannot take
        with _nested():
            output = fwd._dispatching(func)(*args)
        output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, "vjp(f, *primals)", output)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with "
                    f"dtype {o.dtype}"
                )
        out_phys = [to_physical(o, levels) for o in flat_out]
        create_graph = create_graph or (outer_grad and _reaches_outside(out_phys, leaves))
        if has_aux:
            aux = _detach_tree(aux, create_graph)
    out_shapes = [tuple(o.shape) for o in flat_out]
    results = tree_unflatten(
        [from_physical(p if create_graph else p.detach(), levels) for p in out_phys], out_spec
    )
    level_ids = {lv.id for lv in levels}
    graph = create_graph

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {_pprint(cot_spec)}, primal output: {_pprint(out_spec)}"
            )
        # cotangents batched by a vmap entered after this vjp: one backward per entry of that level
        outer = [c._level for c in flat_cot if type(c) is BatchedTensor and c._level not in level_ids]
        if outer:
            from minitorch.func._batched import _select_level, level_of

            lvl = max(outer)
            outs = [
                vjp_fn(
                    tree_unflatten([_select_level(c, lvl, i) for c in flat_cot], cot_spec),
                    retain_graph,
                    create_graph,
                )
                for i in range(level_of(lvl).size)
            ]
            return stack_results(outs, lvl, "vjp")
        keep = graph or bool(create_graph)
        cots = []
        for i, (c, shape) in enumerate(zip(flat_cot, out_shapes)):
            if tuple(c.shape) != shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {_size_str(c.shape)} and output[{i}] has "
                    f"a shape of {_size_str(shape)}."
                )
            cots.append(to_physical(c, levels))
        with enable_grad():
            grads = _grads(out_phys, leaves, cots, keep, retain_graph=retain_graph)
        if not keep:
            grads = [g.detach() for g in grads]
        return tree_unflatten([from_physical(g, levels) for g in grads], spec)

    # what jacfwd's column path differentiates again
    vjp_fn._graph = (leaves, out_phys, levels, create_graph)
    return results, vjp_fn, aux


def _size_str(shape):
    return f"torch.Size({list(shape)})"


def _pprint(spec):
    if spec.is_leaf():
        return "*"
    inner = ", ".join(_pprint(c) for c in spec.children)
    if spec.type is tuple:
        return f"({inner},)" if len(spec.children) == 1 else f"({inner})"
    if spec.type is list:
        return f"[{inner}]"
    if spec.type is dict:
        return "{" + ", ".join(f"{k!r}: {_pprint(c)}" for k, c in zip(spec.context, spec.children)) + "}"
    return f"{spec.type.__name__}({inner})"


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian products, one per primal (a
    tuple), for cotangents shaped like the outputs; with has_aux, (output, vjp_fn, aux)."""
    results, vjp_fn, aux = _vjp_impl(func, primals, None, has_aux)
    if has_aux:
        return results, vjp_fn, aux
    return results, vjp_fn


# ------------------------------------------------------------------------------------ jvp


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J @ tangents): the Jacobian-vector product, by forward-mode AD (dual tensors at a level
    of their own, func/_forward_ad.py). primals and tangents are tuples of the same structure; with has_aux,
    (output, jvp_out, aux)."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(  # noqa: TRY004  (PyTorch's exception type)
            f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For example, if primals is "
            f"a tuple of 3 tensors, tangents also must be. Got primals with structure {p_spec} and tangents with "
            f"structure {t_spec}"
        )
    for what, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{api}: Expected {what} to contain at least one Tensor.")
        for x in flat:
            if not _is_tensor(x):
                raise RuntimeError(f"{api}: Expected {what} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(p.shape)} while the given forward gradient is of "
                f"size {list(t.shape)}."
            )
    from minitorch.func import _forward_ad as fwd

    with fwd._nested_level(functorch=True) as level, _transform():
        func = fwd._dispatching(func)
        for p, t in zip(flat_p, flat_t):
            for what, x in (("primal", p), ("tangent", t)):
                if not fwd._differentiable(x):
                    raise ValueError(f"Expected {what} to be floating point or complex, but got: {x.dtype}")
        # a tangent takes its primal's dtype, but a complex tangent of a real primal stays complex (PyTorch's)
        duals = [fwd._make(p, fwd._tangent_as(t, p), level) for p, t in zip(flat_p, flat_t)]
        output = func(*tree_unflatten(duals, p_spec))
        output, aux = _split_aux(output, has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, api, output)
        primals_out, tangents_out = [], []
        for o in flat_out:
            p, t = fwd._split(o, level)
            primals_out.append(p)
            tangents_out.append(fwd._zeros_like(p) if t is None else t)
        if has_aux:
            aux = tree_map(lambda a: fwd._split(a, level)[0] if _is_tensor(a) else a, aux)
    res = (tree_unflatten(primals_out, out_spec), tree_unflatten(tangents_out, out_spec))
    if has_aux:
        return res + (aux,)
    return res


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian-vector product at primals; tangents must match
    the primals' structure, shapes, devices and dtypes (PyTorch's checks and words)."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)
    meta = [(p.shape, p.device, p.dtype) for p in flat_p]

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(
                f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}"
            )
        for idx, (t, m) in enumerate(zip(flat_t, meta)):
            for what, theirs, ours in zip(("shape", "device", "dtype"), (t.shape, t.device, t.dtype), m):
                if theirs != ours:
                    raise RuntimeError(
                        f"tangent:{idx} with {what} {theirs} in flattened pytree doesn't match the {what} {ours} "
                        "of the corresponding primal."
                    )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


# ------------------------------------------------------------------------------------ jacobians


def _error_if_complex(api, tree, is_input):
    """PyTorch's refusal of complex inputs and outputs in jacrev/jacfwd (their Jacobians would need the
    conjugate Wirtinger pair; PyTorch's message says "input idx" for outputs too)."""
    for idx, x in enumerate(tree_flatten(tree)[0]):
        if _is_tensor(x) and x.dtype.is_complex:
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{api}: Expected all {what} to be real but received complex tensor at flattened input idx: {idx}"
            )


def _jacobian(api, func, argnums, has_aux, args, forward=False):
    results, vjp_fn, aux = _vjp_impl(func, args, argnums, has_aux)
    flat_out, out_spec = tree_flatten(results)
    _error_if_complex(api, flat_out, is_input=False)
    primals = _slice_argnums(args, argnums)
    flat_primals, primals_spec = tree_flatten(primals)
    n_in = sum(p.numel() for p in flat_primals)
    n_out = sum(o.numel() for o in flat_out)
    if forward and 2 * n_in < n_out:
        # fewer inputs than outputs: columns J e_k, two backward passes each (the double-vjp trick)
        blocks = _jacobian_columns(vjp_fn._graph, flat_out, flat_primals)
    else:
        blocks = _jacobian_rows(vjp_fn._graph, flat_out, flat_primals)
    per_output = [tree_unflatten(b, primals_spec) for b in blocks]
    if isinstance(argnums, int):
        per_output = [x[0] for x in per_output]
    out = tree_unflatten(per_output, out_spec)
    if has_aux:
        return out, aux
    return out


def _jacobian_rows(graph, flat_out, flat_primals):
    """[[d out_i / d primal_j]] from one vector-Jacobian product per output element (a backward pass from
    output i alone with a one-hot cotangent), stacked on the physical tensors after the vmap dims."""
    leaves, out_phys, levels, create_graph = graph
    nb = len(levels)
    blocks = []
    with enable_grad():
        for o, op in zip(flat_out, out_phys):
            shape = tuple(o.shape)
            n = o.numel()
            rows = [[] for _ in flat_primals]
            eye = _C.eye(n, dtype=op.dtype, device=op.device) if n else None
            for k in range(n):
                cot = to_physical(eye[k].reshape(shape), levels)
                grads = _grads([op], leaves, [cot], create_graph, retain_graph=True)
                for j, g in enumerate(grads):
                    rows[j].append(g if create_graph else g.detach())
            jac = []
            for j, p in enumerate(flat_primals):
                full = shape + tuple(p.shape)
                if n == 0:
                    # no rows: zeros (inside vmap a plain result is the same for every batch entry)
                    jac.append(_C.zeros(full, dtype=p.dtype, device=p.device))
                    continue
                stacked = _C.stack(rows[j], nb)  # [*vmap dims, n, *primal shape]
                jac.append(from_physical(stacked.reshape(tuple(stacked.shape[:nb]) + full), levels))
            blocks.append(jac)
    return blocks


def _jacobian_columns(graph, flat_out, flat_primals):
    """[[d out_i / d primal_j]] from one Jacobian-vector product per input element: g(u) = J^T u is recorded
    once, then each column is the gradient of <g(u), e_k> with respect to the dummy cotangents u."""
    leaves, out_phys, levels, create_graph = graph
    with enable_grad():
        dummies = [_C.zeros_like(o).requires_grad_() for o in out_phys]
        live = [(o, u) for o, u in zip(out_phys, dummies) if o.requires_grad]
        if live:
            g = _autograd_grad(
                [o for o, _ in live],
                leaves,
                [u for _, u in live],
                create_graph=True,
                retain_graph=True,
                allow_unused=True,
            )
        else:
            g = [None] * len(leaves)
        us = [u for _, u in live]
        blocks = [[] for _ in flat_out]
        for j, p in enumerate(flat_primals):
            n = p.numel()
            cols = [[] for _ in flat_out]
            eye = _C.eye(n, dtype=p.dtype, device=p.device) if n else None
            for k in range(n):
                jv = [None] * len(us)
                if g[j] is not None and g[j].requires_grad:
                    tangent = to_physical(eye[k].reshape(tuple(p.shape)), levels)
                    jv = _autograd_grad(
                        [g[j]], us, [tangent], create_graph=create_graph, retain_graph=True, allow_unused=True
                    )
                by_dummy = {id(u): c for u, c in zip(us, jv)}
                for i, (o, u) in enumerate(zip(out_phys, dummies)):
                    c = by_dummy.get(id(u))
                    c = _C.zeros_like(o) if c is None else (c if create_graph else c.detach())
                    cols[i].append(from_physical(c, levels))
            for i, o in enumerate(flat_out):
                full = tuple(o.shape) + tuple(p.shape)
                if n == 0:
                    blocks[i].append(_C.zeros(full, dtype=o.dtype, device=o.device))
                else:
                    blocks[i].append(call("Tensor.reshape", call("stack", cols[i], -1), full))
    return blocks


def forward_columns(fn, flat_primals, randomness="error"):
    """(flat outputs, aux, [[d out_i / d primal_j]]): every column of the Jacobian of fn(*flat_primals) (which
    returns (flat outputs, aux)) in one forward-mode pass, the standard basis vmapped as the tangents."""
    from minitorch.func._vmap import vmap

    sizes = [p.numel() for p in flat_primals]
    n = sum(sizes)
    captured = {}

    def push(*ts):
        with _fwd_level() as level:
            duals = [_fwd_make(p, t, level) for p, t in zip(flat_primals, ts)]
            outs, aux = fn(*duals)
            prim, tans = [], []
            for o in outs:
                p, t = _fwd_split(o, level)
                prim.append(p)
                tans.append(_C.zeros_like(_plain(p)) if t is None and _C._is_tensor(p) else t)
            captured["out"] = prim
            captured["aux"] = tree_map(lambda a: _fwd_split(a, level)[0] if _is_tensor(a) else a, aux)
        if any(t is None for t in tans):
            raise RuntimeError("jacfwd: expected f to return only tensors")
        # a tangent that does not depend on the basis (a constant output) is the same for every column
        return tuple(t if type(t) is BatchedTensor else call("zeros_like", t) for t in tans)

    if n == 0:
        outs, aux = fn(*flat_primals)
        blocks = [
            [_C.zeros(tuple(o.shape) + tuple(p.shape), dtype=o.dtype, device=o.device) for p in flat_primals]
            for o in outs
        ]
        return outs, aux, blocks
    ref = flat_primals[0]
    eye = _C.eye(n, dtype=ref.dtype if ref.is_floating_point() else None, device=ref.device)
    basis, off = [], 0
    for p, k in zip(flat_primals, sizes):
        basis.append(eye[:, off : off + k].reshape((n, *tuple(p.shape))).to(p.dtype))
        off += k
    from minitorch.func._forward_ad import NestedReverseError

    try:
        cols = vmap(push, randomness=randomness)(*basis)
    except NestedReverseError as e:
        raise _ForwardUnsupported from e
    outs = captured["out"]
    blocks = []
    for o, c in zip(outs, cols):
        row, off = [], 0
        m = o.numel()
        for p, k in zip(flat_primals, sizes):
            part = call("Tensor.reshape", c[off : off + k], (k, m))
            part = call(
                "Tensor.reshape", call("Tensor.transpose", part, 0, 1), tuple(o.shape) + tuple(p.shape)
            )
            row.append(part)
            off += k
        blocks.append(row)
    return outs, captured["aux"], blocks


class _ForwardUnsupported(Exception):
    pass


def _plain(x):
    from minitorch.func import _forward_ad as forward_ad

    return forward_ad._plain_tensor(x)


def _fwd_level():
    from minitorch.func import _forward_ad as forward_ad

    return forward_ad._nested_level(functorch=True)


def _fwd_make(p, t, level):
    from minitorch.func import _forward_ad as forward_ad

    return forward_ad._make(p, t, level)


def _fwd_split(x, level):
    from minitorch.func import _forward_ad as forward_ad

    return forward_ad._split(x, level)


def _jacfwd_impl(func, argnums, has_aux, args, randomness):
    """jacfwd: the Jacobian by forward mode, all columns in one vmapped forward pass."""
    primals = _slice_argnums(args, argnums)
    flat_primals, primals_spec = tree_flatten(primals)
    for p in flat_primals:
        if not _is_tensor(p):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(p)}")
        if not (p.is_floating_point() or p.is_complex()):  # make_dual's check, which PyTorch's jacfwd reaches
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
    from minitorch.func import _forward_ad as forward_ad

    func = forward_ad._dispatching(func)
    out_spec_box = {}

    def fn(*flat):
        new = tree_unflatten(list(flat), primals_spec)
        call_args = _replace_args(args, new if not isinstance(argnums, int) else new[0], argnums)
        output = func(*call_args)
        output, aux = _split_aux(output, has_aux, "jacfwd(f, ...)(*args)")
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, "jacfwd(f, ...)(*args)", output)
        _error_if_complex("jacfwd", flat_out, is_input=False)
        out_spec_box["spec"] = out_spec
        return flat_out, aux

    _, aux, blocks = forward_columns(fn, flat_primals, randomness)
    per_output = [tree_unflatten(b, primals_spec) for b in blocks]
    if isinstance(argnums, int):
        per_output = [x[0] for x in per_output]
    out = tree_unflatten(per_output, out_spec_box["spec"])
    if has_aux:
        return out, aux
    return out


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to the arguments at argnums, by reverse mode (one vector-Jacobian
    product per output element): for one tensor input and output, a tensor of shape out.shape + in.shape;
    trees of outputs and inputs give the same trees of blocks. chunk_size does not change the values."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacrev", args, is_input=True)
        if _fwd_active(args):
            return _through_reverse(wrapper, args)
        return _jacobian("jacrev", func, argnums, has_aux, args)

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to the arguments at argnums, with jacrev's layout, by forward mode: all
    columns in one pass of dual tensors whose tangents are the vmapped standard basis (by the double-vjp trick
    where forward over reverse meets vmap)."""
    from minitorch.func._vmap import check_randomness

    check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacfwd", args, is_input=True)
        STATE.jacfwd_depth += 1
        try:
            return _jacfwd_impl(func, argnums, has_aux, args, randomness)
        except _ForwardUnsupported:
            # forward-over-reverse under vmap (vmap(hessian(f))): the reverse transform cannot take batched
            # dual primals, so the columns come from the double-vjp trick over reverse mode instead
            return _jacobian("jacfwd", func, argnums, has_aux, args, forward=True)
        finally:
            STATE.jacfwd_depth -= 1

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)
