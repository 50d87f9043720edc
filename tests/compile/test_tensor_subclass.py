"""Tensor subclasses and Tensor.__torch_function__: ops on a subclass instance hand back the subclass, a handler
that calls super() sees PyTorch's func and types, opting out and the disabling guards, compared with PyTorch."""

import pickle
import warnings

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch as torch
from minitorch import overrides

MODULES = [("torch", torch)]

# The result type (by name; a tuple's or list's items too) of ~100 calls on a plain subclass, a Parameter and
# a mix of the two.
RESULT_TYPES = r"""
def cases(torch):
    class A(torch.Tensor):
        pass

    def kind(r):
        if isinstance(r, (tuple, list)):
            return [type(r).__name__] + [type(x).__name__ for x in r]
        return type(r).__name__

    run = runner(kind)
    base = torch.arange(6.0).reshape(2, 3)
    a = base.as_subclass(A)
    p = torch.nn.Parameter(torch.ones(2))

    def inplace(f):
        b = a.clone()
        return f(b)

    def setitem(target, value):
        target[0] = value
        return target

    calls = {
        "add": lambda: a + 1, "radd": lambda: 1 + a, "add_t": lambda: a + base, "radd_t": lambda: base + a,
        "mul": lambda: a * a, "neg": lambda: -a, "abs": lambda: abs(a), "pow": lambda: a**2,
        "rpow": lambda: 2**a, "matmul": lambda: a @ a.t(), "lt": lambda: a < 2, "eq": lambda: a == a,
        "eq_none": lambda: a == None, "truediv": lambda: a / 2, "rsub": lambda: 1 - a,
        "torch.add": lambda: torch.add(a, 1), "torch.add_t": lambda: torch.add(base, a),
        "cat": lambda: torch.cat([base, a]), "stack": lambda: torch.stack([a, a]), "sum": lambda: a.sum(),
        "sum_dim": lambda: a.sum(0), "mean": lambda: a.mean(), "max_dim": lambda: a.max(0),
        "sort": lambda: a.sort(), "topk": lambda: torch.topk(a, 1), "split": lambda: a.split(1),
        "chunk": lambda: torch.chunk(a, 2), "unbind": lambda: a.unbind(), "view": lambda: a.view(3, 2),
        "reshape": lambda: a.reshape(-1), "t": lambda: a.t(), "T": lambda: a.T, "mT": lambda: a.mT,
        "transpose": lambda: a.transpose(0, 1), "getitem0": lambda: a[0], "getitem_slice": lambda: a[:, 1],
        "getitem_mask": lambda: a[a > 2], "clone": lambda: a.clone(), "detach": lambda: a.detach(),
        "float": lambda: a.float(), "double": lambda: a.double(), "to_f64": lambda: a.to(torch.float64),
        "contiguous": lambda: a.contiguous(), "exp": lambda: a.exp(), "torch.exp": lambda: torch.exp(a),
        "relu": lambda: torch.relu(a), "F.relu": lambda: torch.nn.functional.relu(a),
        "F.softmax": lambda: torch.nn.functional.softmax(a, -1),
        "F.linear": lambda: torch.nn.functional.linear(a, torch.ones(4, 3)),
        "where": lambda: torch.where(a > 2, a, base), "zeros_like": lambda: torch.zeros_like(a),
        "new_zeros": lambda: a.new_zeros(2), "new_tensor": lambda: a.new_tensor([1.0]),
        "item": lambda: a[0, 0].item(), "tolist": lambda: a.tolist(), "shape": lambda: a.shape,
        "size": lambda: a.size(), "dim": lambda: a.dim(), "numel": lambda: a.numel(), "dtype": lambda: a.dtype,
        "data": lambda: a.data, "real": lambda: a.real, "numpy": lambda: a.numpy(), "iter": lambda: list(a),
        "len": lambda: len(a), "bool": lambda: bool(a[0, 1]), "float()": lambda: float(a[0, 1]),
        "repr": lambda: repr(a), "str": lambda: str(a), "format": lambda: format(a[0, 0], ".2f"),
        "expand": lambda: a[:1].expand(3, 3), "squeeze": lambda: a.unsqueeze(0).squeeze(),
        "permute": lambda: a.permute(1, 0), "flatten": lambda: a.flatten(), "clamp": lambda: a.clamp(1, 3),
        "norm": lambda: a.norm(), "torch.norm": lambda: torch.norm(a), "argmax": lambda: a.argmax(),
        "iadd": lambda: inplace(lambda b: b.__iadd__(1)), "add_": lambda: inplace(lambda b: b.add_(1)),
        "mul_": lambda: inplace(lambda b: b.mul_(2)), "copy_": lambda: inplace(lambda b: b.copy_(base)),
        "zero_": lambda: inplace(lambda b: b.zero_()), "setitem": lambda: setitem(a.clone(), 5.0),
        "setitem_plain": lambda: setitem(base.clone(), a[1]), "grad_none": lambda: a.grad,
        "requires_grad_": lambda: a.clone().requires_grad_(), "type_as": lambda: a.type_as(base),
        "plain.type_as": lambda: base.type_as(a), "as_subclass_back": lambda: a.as_subclass(torch.Tensor),
        "tensor_plus": lambda: torch.tensor(5.0) + a, "mm": lambda: torch.mm(a, base.t()),
        "einsum": lambda: torch.einsum("ij->j", a), "cumsum": lambda: a.cumsum(0),
        "masked_fill": lambda: a.masked_fill(a > 1, 0), "index_select": lambda: a.index_select(0, torch.tensor([0])),
        "gather": lambda: a.gather(1, torch.tensor([[0], [1]])), "cpu": lambda: a.cpu(),
        "nonzero": lambda: a.nonzero(), "unique": lambda: a.unique(), "is_same_size": lambda: a.is_same_size(base),
        "param_add": lambda: p + 1, "param_mul": lambda: p * p, "param_sum": lambda: p.sum(),
        "param_view": lambda: p.view(2), "param_get": lambda: p[0], "param_detach": lambda: p.detach(),
        "param_data": lambda: p.data, "param_clone": lambda: p.clone(),
        "param_a": lambda: p + torch.ones(2).as_subclass(A), "a_param": lambda: torch.ones(2).as_subclass(A) * p,
        "buffer": lambda: torch.nn.Buffer(torch.ones(2)) + 1,
    }  # fmt: skip
    return {name: run(f) for name, f in calls.items()}
"""


def test_result_types_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(RESULT_TYPES, MODULES)
    assert ours == theirs


# What a handler that calls super() sees: func by name, the types by name, and func's identity for the public
# callables PyTorch hands it.
HANDLER_SEES = r"""
def cases(torch):
    log = []

    class L(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append([func.__name__, [t.__name__ for t in types]])
            return super().__torch_function__(func, types, args, kwargs)

    x = torch.ones(2, 3).as_subclass(L)
    y = torch.ones(2, 3)
    out = {}

    def see(name, f):
        log.clear()
        r = f()
        out[name] = [type(r).__name__, list(log)]

    see("add", lambda: x + y)
    see("radd", lambda: y + x)
    see("torch.add", lambda: torch.add(y, x))
    see("sum", lambda: x.sum(0))
    see("getitem", lambda: x[0])
    see("setitem", lambda: x.__setitem__(0, 1.0))
    see("iadd", lambda: x.__iadd__(1))
    see("cat", lambda: torch.cat([y, x]))
    see("mul_", lambda: y.mul_(x))
    see("float", lambda: x.float())

    seen = []

    class I(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    z = torch.ones(2).as_subclass(I)
    torch.add(z, 1)
    z.add(1)
    z[0]
    z.sum()
    out["identity"] = [
        f is g for f, g in zip(seen, [torch.add, torch.Tensor.add, torch.Tensor.__getitem__, torch.Tensor.sum])
    ]
    return out
"""


def test_handler_sees_pytorchs_func_and_types():
    ours, theirs = cases_here_and_in_pytorch(HANDLER_SEES, MODULES)
    assert ours == theirs


# Several subclasses (the most derived first; unrelated ones refuse each other), opting out, handlers that all
# refuse, the disabling guards and the helpers around them.
PROTOCOL = r"""
def cases(torch):
    def kind(r):
        if isinstance(r, (tuple, list)):
            return [type(r).__name__] + [type(x).__name__ for x in r]
        return type(r).__name__

    run = runner(kind)

    class B(torch.Tensor):
        pass

    class C(B):
        pass

    class D(torch.Tensor):
        pass

    class O(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    class N(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    b, c, d = (torch.ones(2).as_subclass(k) for k in (B, C, D))
    o, n = torch.ones(2).as_subclass(O), torch.ones(2).as_subclass(N)
    out = {
        "b+c": run(lambda: b + c), "c+b": run(lambda: c + b), "b+d": run(lambda: b + d),
        "add(b,d)": run(lambda: torch.add(b, d)), "o+1": run(lambda: o + 1), "o.sum": run(lambda: o.sum()),
        "o[0]": run(lambda: o[0]), "n add": run(lambda: torch.add(n, 1)), "n method": run(lambda: n.add(1)),
        "n op": run(lambda: n + 1), "n eq": run(lambda: n == 1),
        "convert": run(lambda: torch._tensor._convert(torch.ones(1), B)),
        "convert_tuple": run(lambda: torch._tensor._convert((torch.ones(1), 2), B)),
        "convert_tensor": run(lambda: torch._tensor._convert(torch.ones(1), torch.Tensor)),
        "make_subclass": run(lambda: torch.Tensor._make_subclass(B, torch.ones(2))),
        "has": [
            torch.overrides.has_torch_function((b,)), torch.overrides.has_torch_function((torch.ones(1),)),
            torch.overrides.has_torch_function((torch.nn.Parameter(torch.ones(1)),)),
            torch.overrides.has_torch_function((o,)), torch.overrides.is_tensor_like(b),
            torch.overrides.has_torch_function_unary(c),
        ],
        "enabled": torch._C._is_torch_function_enabled(),
    }  # fmt: skip
    with torch._C.DisableTorchFunctionSubclass():
        out["disabled"] = [kind(b + 1), kind(torch.add(b, 1)), kind(b.sum()), torch._C._is_torch_function_enabled()]
        with torch._C.DisableTorchFunctionSubclass():
            pass
        out["nested"] = kind(b[0])
    out["after"] = [kind(b + 1), torch._C._is_torch_function_enabled()]
    with torch._C.DisableTorchFunction():
        out["disabled_all"] = [kind(b * 2), torch._C._is_torch_function_enabled()]
    out["impl"] = run(lambda: torch._C._disabled_torch_function_impl(torch.add, (B,), (b, 1)))
    out["impl_kw"] = run(lambda: torch._C._disabled_torch_function_impl(torch.add, (B,), [b, 1], {"alpha": 2}))
    return out
"""


def test_protocol_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(PROTOCOL, MODULES)
    assert ours == theirs


# The docs' examples ("Extending torch with a Tensor wrapper type"): a LoggingTensor whose handler prints its
# arguments (repr runs with the handlers off), a subclass carrying metadata through ops, gradients through a
# subclass, a handler written as a plain method (deprecated: it warns and works).
EXAMPLES = r"""
def cases(torch):
    import warnings

    lines = []

    class LoggingTensor(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is not torch.Tensor.__repr__:
                lines.append(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
            if kwargs is None:
                kwargs = {}
            return super().__torch_function__(func, types, args, kwargs)

    t = torch.tensor([1.0, 2.0]).as_subclass(LoggingTensor)
    r = (t * 2).sum()
    out = {"log": list(lines), "value": r.item(), "type": type(r).__name__, "repr": repr(t)}

    class Tagged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            ret = super().__torch_function__(func, types, args, kwargs)
            tags = [a.tag for a in args if isinstance(a, Tagged) and hasattr(a, "tag")]
            if isinstance(ret, Tagged) and tags:
                ret.tag = tags[0]
            return ret

    g = torch.ones(3).as_subclass(Tagged)
    g.tag = "meters"
    h = (g + 1).exp()[1:]
    out["tag"] = [type(h).__name__, getattr(h, "tag", None), h.tolist()]

    class A(torch.Tensor):
        pass

    x = torch.Tensor._make_subclass(A, torch.tensor([1.0, 2.0, 3.0]), True)
    y = (x * x).sum()
    y.backward()
    out["grad"] = [type(x).__name__, x.is_leaf, type(y).__name__, x.grad.tolist(), y.grad_fn is not None]

    class M(torch.Tensor):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "handled"

    m = torch.ones(2).as_subclass(M)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out["plain_method"] = [torch.add(m, 1), m.add(1), m + 1]
    out["warned"] = sorted({str(x.message)[:60] for x in w})
    return out
"""


def test_docs_examples_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(EXAMPLES, MODULES)
    assert ours == theirs


# The same behaviour asserted here, where no PyTorch is at hand.


class Plain(torch.Tensor):
    pass


def test_ops_keep_the_subclass_and_values():
    base = torch.arange(6.0).reshape(2, 3)
    a = base.as_subclass(Plain)
    for r in (a + 1, torch.add(a, 1), a.sum(0), a[0], a.t(), a.T, a.float(), a.double(), -a, a @ a.t()):
        assert type(r) is Plain
    np.testing.assert_array_equal((a * 2 + 1).numpy(), base.numpy() * 2 + 1)
    vals, idx = a.max(1)
    assert type(vals) is Plain and type(idx) is Plain
    np.testing.assert_array_equal(idx.numpy(), [2, 2])
    empty = torch.empty(0, 3).as_subclass(Plain)
    assert type(empty.sum(0)) is Plain and empty.sum(0).tolist() == [0.0, 0.0, 0.0]
    strided = torch.arange(12.0).reshape(3, 4)[:, ::2].as_subclass(Plain)
    assert type(strided.contiguous()) is Plain and strided.contiguous().tolist() == [[0, 2], [4, 6], [8, 10]]
    for dt in (torch.float32, torch.float64, torch.int64, torch.bool):
        assert type(torch.ones(2, dtype=dt).as_subclass(Plain).clone()) is Plain


def test_inplace_and_setitem_keep_the_object():
    a = torch.zeros(3).as_subclass(Plain)
    assert a.add_(1) is a
    a += 1
    assert type(a) is Plain
    a[0] = 5.0
    assert a.tolist() == [5.0, 2.0, 2.0]


def test_parameter_ops_answer_plain_tensors():
    p = torch.nn.Parameter(torch.ones(2))
    for r in (p + 1, p * p, p.sum(), p[0], p.detach(), p.data, p.view(2)):
        assert type(r) is torch.Tensor
    assert type(p + torch.ones(2).as_subclass(Plain)) is Plain


def test_every_handler_refusing_raises_pytorchs_type_error():
    class Refuses(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    r = torch.ones(2).as_subclass(Refuses)
    with pytest.raises(
        TypeError, match=r"^Multiple dispatch failed for 'torch\.add'; all __torch_function__"
    ):
        torch.add(r, 1)
    with pytest.raises(TypeError, match=r"^Multiple dispatch failed for 'torch\.Tensor\.add'"):
        r.add(1)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Refuses' and 'int'"):
        r + 1


def test_plain_method_handler_warns_and_runs():
    class Method(torch.Tensor):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return 7

    m = torch.ones(2).as_subclass(Method)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert torch.add(m, 1) == 7
    assert any("as a plain method is deprecated" in str(x.message) for x in w)


def test_disable_subclass_guard_nests_and_restores():
    a = torch.ones(2).as_subclass(Plain)
    with torch._C.DisableTorchFunctionSubclass():
        with torch._C.DisableTorchFunction():
            assert not torch._C._is_torch_function_enabled()
        assert type(a + 1) is torch.Tensor
    assert torch._C._is_torch_function_enabled()
    assert type(a + 1) is Plain
    with pytest.raises(ValueError), torch._C.DisableTorchFunctionSubclass():
        raise ValueError
    assert torch._C._is_torch_function_enabled()


def test_overrides_helpers():
    a = torch.ones(2).as_subclass(Plain)
    assert overrides.has_torch_function((a,))
    assert not overrides.has_torch_function((torch.ones(1), torch.nn.Parameter(torch.ones(1))))
    assert overrides.get_default_nowrap_functions() == {
        vars(torch.Tensor)[n].__get__ for n in ("_base", "grad", "_grad") if n in vars(torch.Tensor)
    }
    assert type(torch._tensor._convert([torch.ones(1), 3], Plain)[0]) is Plain


def test_pickle_keeps_the_subclass_and_its_attributes():
    a = torch.arange(3.0).as_subclass(Plain)
    a.unit = "m"
    back = pickle.loads(pickle.dumps(a))
    assert type(back) is Plain and back.unit == "m" and back.tolist() == [0.0, 1.0, 2.0]
    p = pickle.loads(pickle.dumps(torch.nn.Parameter(torch.ones(2))))
    assert type(p) is torch.nn.Parameter and p.requires_grad


# Subclasses built in __new__, PyTorch's common pattern: _make_subclass with attributes of their own, Tensor's
# own __new__ (by super() and by name) with the legacy constructor's arguments, a class without __new__, and
# the errors of each (our Tensor builds its instances in __init__, which these patterns skip or call bare).
NEW_STYLE = r"""
def cases(torch):
    import copy

    def kind(r):
        if isinstance(r, (tuple, list)):
            return [type(r).__name__] + [type(x).__name__ for x in r]
        return type(r).__name__

    run = runner(lambda r: r)

    class Meta(torch.Tensor):
        @staticmethod
        def __new__(cls, data, extra):
            t = torch.Tensor._make_subclass(cls, data)
            t.extra = extra
            return t

        def __init__(self, data, extra):
            pass

    class Grad(torch.Tensor):
        def __new__(cls, data):
            return torch.Tensor._make_subclass(cls, data, True)

    class Sup(torch.Tensor):
        def __new__(cls, x, *args, **kwargs):
            return super().__new__(cls, x, *args, **kwargs)

        def __init__(self, x, *args, **kwargs):
            super().__init__()
            self.tag = len(args)

    class ByName(torch.Tensor):
        def __new__(cls, *args):
            return torch.Tensor.__new__(cls, *args)

    class Bare(torch.Tensor):
        pass

    class InitOnly(torch.Tensor):
        def __init__(self, data, extra):
            self.extra = extra

    def info(t):
        return [kind(t), t.tolist(), str(t.dtype), t.requires_grad, t.is_leaf, t.grad_fn is None,
                isinstance(t, torch.Tensor), sorted(vars(t))]

    m = Meta(torch.arange(3.0), "meters")
    out = {
        "meta": info(m), "meta_extra": m.extra,
        "meta_ops": [kind(m + 1), kind(m.sum()), kind(torch.exp(m)), kind(m[1:]), kind(m.max(0)),
                     hasattr(m + 1, "extra")],
        "meta_values": (m * 2 + 1).tolist(),
        "meta_copy": run(lambda: (lambda c: info(c) + [c.extra])(copy.copy(m))),
        "meta_empty": info(Meta(torch.empty(0, 2), None)),
        "meta_strided": info(Meta(torch.arange(12.0).reshape(3, 4)[:, ::2], 1)),
        "meta_int": info(Meta(torch.arange(3), 1)),
        "grad": info(Grad(torch.ones(2))),
        "grad_of_nonleaf": info(Grad(torch.ones(2, requires_grad=True) * 2)),
        "grad_int": run(lambda: Grad(torch.ones(2, dtype=torch.int64))),
        "sup_tensor": info(Sup(torch.arange(3.0))), "sup_list": info(Sup([1, 2])),
        "sup_sizes": [kind(Sup(2, 3)), list(Sup(2, 3).shape), Sup(2, 3).tag],
        "sup_history": info(Sup(torch.ones(2, requires_grad=True))),
        "sup_device": Sup([1.5], device="cpu").tolist(),
        "sup_bad_data": run(lambda: Sup("a")), "sup_bad_kw": run(lambda: Sup([1.0], dtype=torch.float64)),
        "byname": info(ByName([1.0, 2.0])), "byname_empty": info(ByName()), "byname_sizes": list(ByName(2, 1).shape),
        "bare": info(Bare([1.0, 2.0])), "bare_tensor": info(Bare(torch.ones(2))),
        "init_only": run(lambda: InitOnly([1.0, 2.0], 3)),
    }  # fmt: skip
    grad = Grad(torch.tensor([1.0, 2.0]))
    (grad * grad).sum().backward()
    out["grad_backward"] = [kind(grad.grad), grad.grad.tolist()]
    base = torch.zeros(2)
    shared = torch.Tensor._make_subclass(Bare, base)
    shared.add_(1)
    out["shares_storage"] = base.tolist()
    out["make_subclass_errors"] = [
        run(lambda: torch.Tensor._make_subclass(Bare, [1, 2])), run(lambda: torch.Tensor._make_subclass(Bare, 3)),
        run(lambda: torch.Tensor._make_subclass(int, torch.ones(1))),
        run(lambda: torch.Tensor._make_subclass(3, torch.ones(1))),
        run(lambda: torch.Tensor._make_subclass(Bare, torch.ones(1, dtype=torch.int32), True)),
    ]
    out["make_subclass_plain"] = kind(torch.Tensor._make_subclass(torch.Tensor, torch.ones(2)))
    out["make_subclass_keywords"] = [
        torch.Tensor._make_subclass(Bare, torch.ones(2), require_grad=True).requires_grad,
        kind(torch.Tensor._make_subclass(cls=Bare, data=torch.ones(2))),
    ]
    try:
        torch.Tensor.__new__(int, 2)
        out["new_not_tensor"] = None
    except TypeError as e:
        out["new_not_tensor"] = ["TypeError", "int is not a subtype of" in str(e)]
    return out
"""


def test_subclasses_built_in_new_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(NEW_STYLE, MODULES)
    assert ours == theirs


# What a handler sees for the functions PyTorch writes in Python (and ours too): the function called, not an
# op it runs inside, by name and identity.
PUBLIC_FUNC = r"""
def cases(torch):
    F = torch.nn.functional
    seen = []

    class L(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    x = (torch.arange(8.0).reshape(2, 4) / 7 - 0.3).as_subclass(L)
    w = torch.arange(12.0).reshape(3, 4) / 11
    img = (torch.arange(16.0).reshape(1, 4, 2, 2) / 15).as_subclass(L)
    calls = [
        (F, "relu", (x,), {}), (F, "relu", (x.clone(),), {"inplace": True}), (F, "gelu", (x,), {}),
        (F, "silu", (x,), {}), (F, "linear", (x, w), {}), (F, "linear", (w, x), {}),
        (F, "softmax", (x, -1), {}), (F, "log_softmax", (x,), {"dim": 1}), (F, "layer_norm", (x, (4,)), {}),
        (F, "normalize", (x,), {}), (F, "mse_loss", (x, w[:2]), {}), (F, "dropout", (x, 0.5, False), {}),
        (F, "leaky_relu", (x,), {}), (F, "elu", (x,), {}), (F, "pad", (x, (1, 1)), {}),
        (F, "cross_entropy", (x, torch.tensor([0, 1])), {}), (F, "hardtanh", (x,), {}),
        (F, "softplus", (x,), {}), (F, "glu", (x,), {}), (F, "embedding", (torch.tensor([0, 1]), x), {}),
        (F, "softmin", (x, 1), {}), (F, "relu6", (x,), {}), (F, "mish", (x,), {}), (F, "selu", (x,), {}),
        (F, "l1_loss", (x, w[:2]), {}), (F, "nll_loss", (x, torch.tensor([0, 1])), {}),
        (F, "kl_div", (x, w[:2]), {"reduction": "batchmean"}), (F, "smooth_l1_loss", (x, w[:2]), {}),
        (F, "group_norm", (x, 2), {}), (F, "batch_norm", (x, None, None), {"training": True}),
        (F, "triplet_margin_loss", (x, x, x), {}),
        (torch, "tensordot", (x, w.t(), 1), {}),
        (torch, "cdist", (x, x), {}), (torch, "block_diag", (x, x), {}), (torch, "norm", (x,), {}),
        (torch, "split", (x, 1), {}), (torch, "einsum", ("ij->i", x), {}),
        (torch, "broadcast_tensors", (x, w[:1]), {}),
    ]  # fmt: skip
    out = []
    for mod, name, args, kwargs in calls:
        seen.clear()
        r = getattr(mod, name)(*args, **kwargs)
        kinds = [type(e).__name__ for e in r] if isinstance(r, (tuple, list)) else type(r).__name__
        out.append([name, kinds, [f.__name__ for f in seen], seen[-1] is getattr(mod, name), round(float(
            (r[0] if isinstance(r, (tuple, list)) else r).double().sum()), 4)])
    return out
"""


def test_handlers_see_the_public_python_function_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(PUBLIC_FUNC, MODULES)
    assert ours == theirs


def test_a_nested_public_function_hands_over_the_outermost_once():
    # F.softmin runs F.softmax's op (neg, softmax) inside; a tensor-like and a subclass in one call; a genuine
    # error raised inside still raises (the handler re-runs the function with the subclasses' handlers off)
    seen = []

    class S(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    s = torch.tensor([[1.0, -2.0, 3.0]]).as_subclass(S)
    r = torch.nn.functional.softmin(s, 1)
    assert seen == [torch.nn.functional.softmin] and type(r) is S
    np.testing.assert_allclose(r.numpy(), torch.softmax(-torch.tensor([[1.0, -2.0, 3.0]]), 1).numpy())
    seen.clear()
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.nn.functional.softmax(s, 5)
    assert seen[0] is torch.nn.functional.softmax
    with torch._C.DisableTorchFunctionSubclass():
        seen.clear()
        assert type(torch.nn.functional.relu(s)) is torch.Tensor and seen == []


def test_parameter_and_buffer_still_build_in_init():
    p = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    b = torch.nn.Buffer(torch.zeros(3), persistent=False)
    assert type(p) is torch.nn.Parameter and not p.requires_grad and p.tolist() == [1.0, 1.0]
    assert type(b) is torch.nn.Buffer and not b.persistent and b.tolist() == [0.0, 0.0, 0.0]

    class MyParam(torch.nn.Parameter):
        pass

    q = MyParam(torch.ones(1))
    assert type(q) is MyParam and q.requires_grad and q.is_leaf
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor([1, 2]).dtype == torch.float32


# copy.deepcopy of subclasses, PyTorch's protocol: through the handler (Tensor.__deepcopy__), the default one
# refusing (its new_empty answers a plain Tensor, as does an opted-out class's), one whose new_empty keeps the
# type copying data, grad, attributes and slots; graph non-leaves refused; the memo kept.
DEEPCOPY = r"""
def cases(torch):
    import copy

    run = runner(lambda r: r)

    class A(torch.Tensor):
        pass

    class O(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    class NE(torch.Tensor):
        def new_empty(self, *args, **kwargs):
            return super().new_empty(*args, **kwargs).as_subclass(type(self))

    class S(NE):
        __slots__ = ("s",)

    seen = []

    class I(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return "answered"

    n = torch.Tensor._make_subclass(NE, torch.arange(6.0).reshape(2, 3)[:, ::2], True)
    n.tag = [1]
    n.grad = torch.ones(2, 2)
    s = torch.arange(2.0).as_subclass(S)
    s.s = {"k": 1}

    def info(c, of):
        return [type(c).__name__, c.tolist(), c.requires_grad, c.is_leaf, vars(c), vars(c).get("tag") is not None
                and vars(c)["tag"] is vars(of).get("tag"), None if c.grad is None else [type(c.grad).__name__,
                c.grad.tolist()], c.data_ptr() != of.data_ptr()]

    out = {
        "default": run(lambda: copy.deepcopy(torch.ones(2).as_subclass(A))),
        "opted_out": run(lambda: copy.deepcopy(torch.ones(1).as_subclass(O))),
        "new_empty": run(lambda: info(copy.deepcopy(n), n)),
        "empty": run(lambda: info(copy.deepcopy(torch.empty(0).as_subclass(NE)), torch.empty(0))),
        "int": run(lambda: info(copy.deepcopy(torch.arange(3).as_subclass(NE)), torch.arange(3))),
        "memo": run(lambda: (lambda r: [r[0] is r[1], type(r[0]).__name__])(copy.deepcopy([n, n]))),
        "non_leaf": run(lambda: copy.deepcopy(n * 2)),
        "slots": run(lambda: (lambda c: [type(c).__name__, c.s, c.s is s.s, c.tolist()])(copy.deepcopy(s))),
        "handler": copy.deepcopy(torch.ones(1).as_subclass(I)),
    }  # fmt: skip
    out["handler_func"] = [seen[0] is torch.Tensor.__deepcopy__, seen[0].__name__]
    return out
"""


def test_deepcopy_of_subclasses_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(DEEPCOPY, MODULES)
    assert ours == theirs


# The attribute reads PyTorch hands a subclass's handler (every Tensor getter, dim(), numel()): what the handler
# is given and what the read answers, and a handler that answers shape itself.
GETTERS = r"""
def cases(torch):
    seen = []

    class L(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    x = torch.ones(2, 3).as_subclass(L)
    out = {}
    for name in ("shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad", "is_leaf", "grad_fn",
                 "T", "mT", "data", "real", "_base", "output_nr", "_version", "is_meta", "itemsize", "nbytes",
                 "is_cpu"):
        seen.clear()
        r = getattr(x, name)
        out[name] = [type(r).__name__, str(r) if not isinstance(r, torch.Tensor) else r.tolist(),
                     [f.__name__ for f in seen], bool(seen) and seen[0] == getattr(torch.Tensor, name).__get__]
    for name in ("dim", "numel", "size"):
        seen.clear()
        r = getattr(x, name)()
        out[name] = [str(r), [f.__name__ for f in seen], bool(seen) and seen[0] is getattr(torch.Tensor, name)]

    class Fixed(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func == torch.Tensor.shape.__get__:
                return (7,)
            return super().__torch_function__(func, types, args, kwargs)

    f = torch.ones(2).as_subclass(Fixed)
    out["answered"] = [f.shape, f.dtype == torch.float32, f.dim(), type(f + 1).__name__]
    with torch._C.DisableTorchFunctionSubclass():
        seen.clear()
        out["disabled"] = [list(x.shape), x.dim(), len(seen)]
    return out
"""


def test_getters_reach_the_handler_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(GETTERS, MODULES)
    assert ours == theirs


class Tagged(torch.Tensor):
    @staticmethod
    def __new__(cls, data, unit):
        t = torch.Tensor._make_subclass(cls, data)
        t.unit = unit
        return t

    def __init__(self, data, unit):
        pass


def test_new_style_subclass_pickles_with_its_attributes():
    t = Tagged(torch.arange(4.0).reshape(2, 2).t(), "m")
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is Tagged and back.unit == "m" and back.tolist() == [[0.0, 2.0], [1.0, 3.0]]
    assert type(back + 1) is Tagged and not hasattr(back + 1, "unit")


class Slotted(torch.Tensor):
    __slots__ = ("note",)


def test_slots_pickle():
    t = torch.arange(3.0).as_subclass(Slotted)
    t.note = ("a", 1)
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is Slotted and back.note == ("a", 1) and back.tolist() == [0.0, 1.0, 2.0]
