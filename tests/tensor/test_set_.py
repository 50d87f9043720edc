"""Tensor.set_ in its five forms and Tensor.is_set_to: sizes, strides, offsets, shared memory (writes through one
tensor seen by the other), version counters, autograd and the errors for bad input, against PyTorch 2.15."""

import numpy as np
import pytest

import minitorch as torch
from tests.utils import cases_here_and_in_pytorch

# Each case returns JSON: ["ok", what it observed] or [exception type, message]. Run here and under PyTorch.
_CASES = """
import warnings
warnings.simplefilter("ignore")  # TypedStorage's deprecation warning


def run(f):
    try:
        return ["ok", f()]
    except Exception as e:
        return [type(e).__name__, str(e)]


def cases(T):
    def info(t):
        return [list(t.shape), list(t.stride()), t.storage_offset(), t._version, t.untyped_storage().nbytes(),
                str(t.dtype)]

    out = {}

    # set_(): an empty storage of its own, the version bumped once, self returned
    def empty():
        a = T.arange(6.0)
        a.add_(1)
        v = a[1:]
        r = a.set_()
        return [r is a, info(a), a.tolist(), v._version, v.tolist()]
    out["empty"] = run(empty)

    # set_(source): source's storage, sizes, strides and offset, its own version count
    def tensor_form():
        a = T.arange(6.0)
        a.add_(1)
        b = T.arange(12.0).reshape(3, 4)[:, 1:3]  # non-contiguous, offset 1
        r = a.set_(b)
        same = [r is a, a.data_ptr() == b.data_ptr(), a.is_set_to(b), b.is_set_to(a)]
        before = [info(a), info(b), a.tolist()]
        a[0, 0] = 100.0  # seen through b, counted on a only
        b[2, 1] = -1.0  # seen through a, counted on b only
        return same + before + [a.tolist(), b.tolist(), a._version, b._version]
    out["tensor"] = run(tensor_form)

    def tensor_transposed():
        a = T.zeros(1)
        b = T.arange(6.0).reshape(2, 3).t()
        a.set_(b)
        return [info(a), a.tolist(), a.is_contiguous(), a.is_set_to(b)]
    out["tensor_transposed"] = run(tensor_transposed)

    def tensor_versions():
        a = T.zeros(3)
        v = a[1:]  # shares a's counter: sees set_'s bump
        b = T.ones(3)
        a.set_(b)
        b.add_(1)
        return [a._version, b._version, v._version, v.tolist(), a.tolist()]
    out["tensor_versions"] = run(tensor_versions)

    def tensor_self():
        a = T.arange(4.0)
        a.add_(1)
        a.set_(a)
        return info(a) + [a.tolist()]
    out["tensor_self"] = run(tensor_self)

    def tensor_empty():
        a = T.ones(3)
        e = T.zeros(0, 4)
        a.set_(e)
        return info(a) + [a.is_set_to(e), e.is_set_to(a)]
    out["tensor_empty"] = run(tensor_empty)

    def tensor_zero_dim():
        a = T.ones(3)
        s = T.tensor(5.0)
        a.set_(s)
        a.fill_(2.0)
        return info(a) + [s.item()]
    out["tensor_zero_dim"] = run(tensor_zero_dim)

    for dt in ["float64", "int64", "int32", "bool", "float16", "complex64"]:
        def same_dtype(dt=dt):
            d = getattr(T, dt)
            a = T.zeros(2, dtype=d)
            b = T.ones(3, dtype=d)
            a.set_(b)
            return info(a) + [a.data_ptr() == b.data_ptr()]
        out["dtype_" + dt] = run(same_dtype)

    # set_(storage, ...): an UntypedStorage reinterprets its bytes; a TypedStorage must be of self's dtype
    def untyped():
        b = T.arange(12.0)
        s = b.untyped_storage()
        a = T.zeros(2)
        a.set_(s)
        r1 = info(a) + [a.is_set_to(b), a.data_ptr() == b.data_ptr()]
        a2 = T.zeros(2)
        a2.set_(s, 2, (2, 2), (3, 1))
        r2 = info(a2) + [a2.tolist()]
        a2[1, 1] = 50.0
        return [r1, r2, b.tolist()]
    out["untyped"] = run(untyped)

    def untyped_other_dtype():
        s = T.arange(7, dtype=T.uint8).untyped_storage()
        a = T.zeros(1)
        a.set_(s)  # 7 bytes: one float
        i = T.zeros(1, dtype=T.int16)
        i.set_(T.tensor([1, 2], dtype=T.int32).untyped_storage())
        return [info(a), info(i), i.tolist()]
    out["untyped_other_dtype"] = run(untyped_other_dtype)

    def typed():
        ts = T.arange(4.0).storage()
        a = T.zeros(2)
        a.set_(ts, 1, (2,))
        a[0] = 7.0
        b = T.zeros(5)
        b.set_(ts)
        return [info(a), a.tolist(), ts.tolist(), info(b)]
    out["typed"] = run(typed)

    def storage_keywords():
        s = T.arange(6.0).untyped_storage()
        a = T.zeros(1).set_(source=s, storage_offset=1, size=(2,), stride=(2,))
        b = T.zeros(1).set_(s, 1, [2], None)
        c = T.zeros(1).set_(s, T.tensor(2), (T.tensor(2),), ())
        return [info(a), a.tolist(), info(b), info(c), c.tolist()]
    out["storage_keywords"] = run(storage_keywords)

    # set_(source, storage_offset, size, stride): a contiguous source stands for its storage; offsets add up
    def tensor_geometry():
        c = T.arange(12.0)
        a = T.zeros(2).set_(c, 1, (2, 2))
        b = T.zeros(2).set_(c[2:], 1, (2, 2), (1, 2))
        d = T.zeros(2).set_(c[4:], -1, (2,))
        e = T.zeros(2).set_(c.view(3, 4), 0, (3,), (4,))
        b[0, 0] = -3.0
        return [info(a), a.tolist(), info(b), b.tolist(), info(d), d.tolist(), info(e), e.tolist(), c[3].item()]
    out["tensor_geometry"] = run(tensor_geometry)

    def tensor_geometry_other_dtype():
        a = T.zeros(2).set_(T.zeros(2, dtype=T.int64), 0, (1,))
        return info(a) + [a.tolist()]
    out["tensor_geometry_other_dtype"] = run(tensor_geometry_other_dtype)

    def tensor_geometry_kw():
        c = T.arange(6.0)
        a = T.zeros(2).set_(c, storage_offset=1, size=(2,))
        b = T.zeros(2).set_(c, 1, size=(2,), stride=(3,))
        return [info(a), a.tolist(), info(b), b.tolist()]
    out["tensor_geometry_kw"] = run(tensor_geometry_kw)

    # empty and 0-dim geometries; negative strides of dims of size 0 or 1 become PyTorch's monotonic ones
    def empties():
        c = T.zeros(4)
        r = []
        for off, size, stride in [(3, (0,), None), (10, (0,), None), (3, (), None), (0, (0,), (-1,)),
                                  (0, (0, 3), (7, -2)), (0, (0, 3), (-7, 2)), (0, (3, 0), (-7, 2)),
                                  (0, (1, 3), (-1, 1)), (0, (2, 1), (1, -1)), (0, (3,), (0,))]:
            a = T.zeros(2).set_(c, off, size, stride)
            r.append(info(a))
        return r
    out["empties"] = run(empties)

    # a storage too small grows (for self, at least) unless the geometry is unchanged
    def grow():
        src = T.arange(2.0)
        a = T.zeros(1)
        a.set_(src, 1, (4,))
        a[1] = 9.0
        b = T.zeros(1)
        b.set_(T.arange(2.0), 1, (4,), (2,))
        u = T.zeros(1)
        u.set_(T.arange(2, dtype=T.uint8).untyped_storage(), 0, (2,))
        return [info(a), a[0].item(), a[1].item(), src.tolist(), info(b), info(u)]
    out["grow"] = run(grow)
    out["grow_unchanged_geometry"] = run(lambda: T.zeros(2).set_(T.zeros(2), 1, (2,)))
    out["grow_unchanged_geometry_strides"] = run(lambda: T.zeros(2, 2).t().set_(T.zeros(2), 0, (2, 2), (1, 2)))
    out["grow_unchanged_typed"] = run(lambda: T.zeros(2).set_(T.zeros(2).storage(), 1, (2,), None))

    def grow_failed_leaves_self():
        a = T.zeros(2)
        b = T.zeros(2)
        try:
            a.set_(b, 1, (2,))
        except RuntimeError:
            pass
        return [a.data_ptr() == b.data_ptr(), a._version, a.storage_offset()]
    out["grow_failed_leaves_self"] = run(grow_failed_leaves_self)

    # bad input, in PyTorch's words and order
    out["dtype"] = run(lambda: T.zeros(2).set_(T.zeros(2, dtype=T.int64)))
    out["dtype_bool"] = run(lambda: T.zeros(2, dtype=T.bool).set_(T.zeros(2)))
    out["dtype_half"] = run(lambda: T.zeros(2).set_(T.zeros(2, dtype=T.float16)))
    out["dtype_complex"] = run(lambda: T.zeros(2).set_(T.zeros(2, dtype=T.complex64)))
    out["dtype_bf16_u8"] = run(lambda: T.zeros(2, dtype=T.bfloat16).set_(T.zeros(2, dtype=T.uint8)))
    for dt in ["float16", "float64", "bfloat16", "complex64", "bool", "uint8", "int16", "int8", "int32"]:
        out["typed_" + dt] = run(lambda dt=dt: T.zeros(2).set_(T.zeros(2, dtype=getattr(T, dt)).storage()))
    out["typed_self_int64"] = run(lambda: T.zeros(2, dtype=T.int64).set_(T.zeros(2, dtype=T.int8).storage()))
    out["typed_self_half"] = run(lambda: T.zeros(2, dtype=T.float16).set_(T.zeros(2).storage(), 0, (1,)))
    out["leaf"] = run(lambda: T.zeros(2, requires_grad=True).set_(T.zeros(2)))
    out["leaf_empty"] = run(lambda: T.zeros(2, requires_grad=True).set_())
    out["leaf_storage"] = run(lambda: T.zeros(2, requires_grad=True).set_(T.ones(3).untyped_storage()))
    out["leaf_then_dtype"] = run(lambda: T.zeros(2, requires_grad=True).set_(T.zeros(2, dtype=T.int64)))
    out["leaf_then_offset"] = run(lambda: T.zeros(2, requires_grad=True).set_(T.zeros(2), -1, (1,)))
    out["leaf_view"] = run(lambda: T.zeros(4, requires_grad=True)[1:].set_(T.zeros(2)))
    out["noncontiguous_geometry"] = run(lambda: T.zeros(2).set_(T.zeros(4)[::2], 0, (2,)))
    out["noncontiguous_before_leaf"] = run(lambda: T.zeros(2, requires_grad=True).set_(T.zeros(4)[::2], 0, (1,)))
    out["stride_length"] = run(lambda: T.zeros(2).set_(T.zeros(2), 0, (2,), (1, 1)))
    out["stride_length_before_offset"] = run(lambda: T.zeros(2).set_(T.zeros(2), -1, (2,), (1, 1)))
    out["negative_offset"] = run(lambda: T.zeros(2).set_(T.zeros(2), -1, (1,)))
    out["negative_offset_storage"] = run(lambda: T.zeros(2).set_(T.zeros(4).untyped_storage(), -1, (2,)))
    out["negative_size"] = run(lambda: T.zeros(2).set_(T.zeros(4), 0, (-2,)))
    out["negative_size_2d"] = run(lambda: T.zeros(2).set_(T.zeros(4), 0, (2, -3), (1, 1)))
    out["huge_size"] = run(lambda: T.zeros(2).set_(T.zeros(4), 0, (2**62, 4)))
    out["negative_stride"] = run(lambda: T.zeros(2).set_(T.zeros(4), 0, (2,), (-1,)))
    out["negative_stride_2d"] = run(lambda: T.zeros(2).set_(T.zeros(9), 0, (2, 3), (-1, 1)))
    out["huge_stride"] = run(lambda: T.zeros(2).set_(T.zeros(4), 0, (2,), (2**62,)))
    out["device"] = run(lambda: T.zeros(2).set_(T.ones(2, device="meta")))
    out["device_storage"] = run(lambda: T.zeros(2).set_(T.ones(2, device="meta").untyped_storage()))
    out["device_after_offset"] = run(lambda: T.zeros(2).set_(T.zeros(2, device="meta"), -1, (2,)))
    out["device_before_size"] = run(lambda: T.zeros(2).set_(T.zeros(2, device="meta"), 0, (-2,)))
    out["dtype_before_device"] = run(lambda: T.zeros(2).set_(T.zeros(2, device="meta", dtype=T.int64)))
    for name, call in [
        ("int", lambda x: x.set_(3)),
        ("none", lambda x: x.set_(None)),
        ("tensor_int", lambda x: x.set_(T.zeros(2), 0)),
        ("storage_int", lambda x: x.set_(T.zeros(2).untyped_storage(), 0)),
        ("size_int", lambda x: x.set_(T.zeros(3).untyped_storage(), 1, 2)),
        ("offset_float", lambda x: x.set_(T.zeros(4), 1.0, (2,))),
        ("offset_bool", lambda x: x.set_(T.zeros(4), True, (1,))),
        ("size_float", lambda x: x.set_(T.zeros(4), 0, (1.5,))),
        ("size_bool", lambda x: x.set_(T.zeros(4), 0, (True,))),
        ("keyword", lambda x: x.set_(T.zeros(2), foo=1)),
        ("stride_without_size", lambda x: x.set_(T.zeros(4), 0, stride=(1,))),
        ("five", lambda x: x.set_(T.zeros(2), 0, (1,), (1,), 5)),
    ]:
        out["args_" + name] = run(lambda call=call: call(T.zeros(2)))
    out["is_set_to_int"] = run(lambda: T.zeros(2).is_set_to(3))
    out["is_set_to_none"] = run(lambda: T.zeros(2).is_set_to(None))

    # is_set_to: the same storage, offset, sizes and strides
    def is_set_to():
        a = T.zeros(2)
        b = T.ones(3)
        a.set_(b)
        e = T.zeros(0)
        return [a.is_set_to(b), b.is_set_to(a), a.is_set_to(b[1:]), a.is_set_to(b.view(3)),
                a.is_set_to(b.view(1, 3)), a.is_set_to(a), b.is_set_to(tensor=b), e.is_set_to(e),
                e.is_set_to(T.empty(0)), T.tensor(1.0).is_set_to(T.tensor(1.0)),
                T.zeros(1).set_(b.untyped_storage()).is_set_to(b),
                T.zeros(1, dtype=T.int32).set_(b.untyped_storage()).is_set_to(b), b.is_set_to(b.data),
                b.is_set_to(b.detach())]
    out["is_set_to"] = run(is_set_to)

    # autograd: set_ has no derivative (PyTorch's NotImplemented node); a leaf requiring grad is refused
    def source_requires_grad():
        x = T.randn(3, requires_grad=True)
        a = T.zeros(3)
        a.set_(x)
        r = [a.requires_grad, a.grad_fn.name(), a.is_leaf, a.data_ptr() == x.data_ptr()]
        try:
            a.sum().backward()
        except RuntimeError as e:
            r.append(str(e))
        return r
    out["source_requires_grad"] = run(source_requires_grad)

    def source_requires_grad_geometry():
        x = T.randn(3, requires_grad=True)
        a = T.zeros(3).set_(x, 1, (2,))
        b = T.zeros(3).set_(x.untyped_storage())
        return [a.requires_grad, a.grad_fn is None, b.requires_grad, b.grad_fn is None]
    out["source_requires_grad_geometry"] = run(source_requires_grad_geometry)

    def nonleaf_self():
        x = T.randn(3, requires_grad=True)
        r = []
        for f in [lambda y: y.set_(T.ones(2)), lambda y: y.set_(T.ones(3), 0, (2,)), lambda y: y.set_(),
                  lambda y: y.set_(T.ones(3).untyped_storage())]:
            y = x * 2
            f(y)
            r.append([y.requires_grad, y.grad_fn.name(), y.tolist()])
        y = x * 2
        y.set_(T.ones(2))
        try:
            y.sum().backward()
        except RuntimeError as e:
            r.append(str(e))
        return r
    out["nonleaf_self"] = run(nonleaf_self)

    def complex_nonleaf():
        x = T.randn(3, dtype=T.complex64, requires_grad=True)
        y = x * 2
        y.set_(T.ones(2, dtype=T.complex64))
        return [y.requires_grad, y.grad_fn.name()]
    out["complex_nonleaf"] = run(complex_nonleaf)

    def no_grad_leaf():
        p = T.zeros(2, requires_grad=True)
        with T.no_grad():
            r = p.set_(T.ones(3))
        return [r is p, p.requires_grad, p.is_leaf, p.grad_fn is None, p.tolist(), p._version]
    out["no_grad_leaf"] = run(no_grad_leaf)

    def parameter():
        p = T.nn.Parameter(T.zeros(2))
        with T.no_grad():
            p.set_(T.ones(3))
        return [type(p).__name__, p.requires_grad, p.tolist()]
    out["parameter"] = run(parameter)

    def saved_result_unaffected():
        x = T.randn(3, requires_grad=True, dtype=T.float64)
        y = x * 1
        s = y.exp()  # saves its result, not y
        y.set_(T.ones(3, dtype=T.float64))
        s.sum().backward()
        return [(x.grad - x.exp()).abs().max().item() < 1e-12, y.grad_fn.name()]
    out["saved_result_unaffected"] = run(saved_result_unaffected)

    def saved_input_modified():
        x = T.randn(3, requires_grad=True)
        y = x * 1
        s = y.sin()  # saves y, which set_ then moves
        with T.no_grad():
            y.set_(T.ones(3))
        try:
            s.sum().backward()
            return "no error"
        except RuntimeError as e:
            return str(e).split(";")[0]
    out["saved_input_modified"] = run(saved_input_modified)

    # a view set_ elsewhere stops seeing its base's memory
    def view():
        base = T.arange(6.0)
        v = base[1:4]
        v.set_(T.ones(2))
        versions = [v._version, base._version]
        v.add_(1)
        return [v.tolist(), base.tolist()] + versions
    out["view"] = run(view)

    def view_of_nonleaf():
        x = T.arange(6.0, requires_grad=True)
        base = x * 1
        v = base[1:4]
        v.set_(T.ones(2))
        return [v.tolist(), v.requires_grad, base.tolist()]
    out["view_of_nonleaf"] = run(view_of_nonleaf)

    def no_grad_view():
        x = T.arange(6.0, requires_grad=True)
        with T.no_grad():
            v = x[1:4]
        v2 = T.zeros(4)[1:]
        return [run(lambda: v.set_(T.ones(2))), run(lambda: v2.set_(T.ones(2)).tolist())]
    out["no_grad_view"] = run(no_grad_view)

    # inference tensors: refused outside inference mode; set_ keeps a tensor's kind
    def inference():
        with T.inference_mode():
            t = T.ones(2)
        a = T.zeros(2)
        a.set_(t)
        r = [a.is_inference(), run(lambda: t.set_(T.zeros(2)))]
        b = T.zeros(2)
        with T.inference_mode():
            b.set_(T.ones(3))
            t.set_(T.ones(3))
        return r + [b.is_inference(), b._version, b.tolist(), t.is_inference(), t.tolist()]
    out["inference"] = run(inference)
    return out
"""

# ours: the view's _base link is dropped (PyTorch keeps it though the memory is elsewhere); a storage that
# grows grows for self alone. Both are compared below apart from these cases.


@pytest.fixture(scope="module")
def both():
    return cases_here_and_in_pytorch(_CASES, [("torch", torch)])


def test_set_against_pytorch(both):
    ours, theirs = both
    assert ours.keys() == theirs.keys()
    differ = [f"{k}: ours {ours[k]} != PyTorch's {theirs[k]}" for k in ours if ours[k] != theirs[k]]
    assert not differ, "\n".join(differ)


def test_set_returns_self_and_keeps_identity():
    a = torch.zeros(2)
    b = torch.arange(4.0)
    assert a.set_(b) is a and a.set_() is a
    assert a.set_(b.untyped_storage(), 1, (2,)) is a and a.tolist() == [1.0, 2.0]


def test_growth_is_self_alone_and_keeps_old_bytes():
    # PyTorch grows the one storage in place, so the source sees it; ours gives self new memory holding the
    # old bytes (docs/architecture.md)
    src = torch.arange(3.0)
    a = torch.zeros(1)
    a.set_(src, 1, (5,))
    assert a.untyped_storage().nbytes() == 24 and a[:2].tolist() == [1.0, 2.0]
    a[0] = 7.0
    assert src.tolist() == [0.0, 1.0, 2.0] and src.untyped_storage().nbytes() == 12


def test_growth_of_borrowed_memory_is_refused():
    arr = np.zeros(2)
    src = torch.from_numpy(arr)
    a = torch.zeros(1, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        a.set_(src, 1, (4,))
    a.set_(src, 1, (1,))  # fits: shares the array's memory
    a[0] = 5.0
    assert arr.tolist() == [0.0, 5.0]


def test_set_view_is_no_view_afterwards():
    base = torch.arange(6.0)
    v = base[1:4]
    v.set_(torch.ones(2))
    assert v._base is None and not v._is_view()
    v.add_(1)
    assert base.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_set_data_alias_shares_the_root():
    # x.data is an alias storage over x's memory: set_ to it is set_ to x's memory, with self's own counter
    x = torch.arange(3.0)
    a = torch.zeros(1)
    a.set_(x.data)
    assert a.is_set_to(x) and a.data_ptr() == x.data_ptr()
    x.add_(1)
    assert a.tolist() == [1.0, 2.0, 3.0] and a._version == 1 and x._version == 1


def test_invalid_combination_names_storage_types():
    s = torch.zeros(2).untyped_storage()
    with pytest.raises(TypeError) as e:
        torch.zeros(2).set_(s, 0)
    assert "got (torch.storage.UntypedStorage, int), but expected one of:" in str(e.value)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_set_on_cuda():
    b = torch.arange(6.0, device="cuda")
    a = torch.zeros(1, device="cuda")
    a.set_(b, 1, (2, 2))
    assert a.tolist() == [[1.0, 2.0], [3.0, 4.0]] and a.data_ptr() == b.data_ptr() + 4
    a.set_(b[:2], 0, (8,))  # grows (for self) on the GPU
    assert a.untyped_storage().nbytes() == 32 and a[:6].tolist() == b.tolist()
    with pytest.raises(RuntimeError) as e:
        torch.zeros(2).set_(b)
    assert str(e.value) == (
        'Attempted to set the storage of a tensor on device "cpu" to a storage on different device "cuda:0".  '
        "This is no longer allowed; the devices must match."
    )
