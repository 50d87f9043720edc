"""In-place view ops (t_, transpose_, squeeze_, unsqueeze_, swapdims_, as_strided_), storage objects
(untyped_storage, storage), memory formats (channels_last and friends) and empty_strided/new_empty_strided.
Expected results, errors and gradients are PyTorch's (checked against PyTorch 2.x)."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from tests.utils import cases_here_and_in_pytorch

# ---------------------------------------------------------------- in-place view ops


@pytest.mark.parametrize(
    "call,shape,stride",
    [
        (lambda x: x.t_(), (3, 2), (1, 3)),
        (lambda x: x.transpose_(0, 1), (3, 2), (1, 3)),
        (lambda x: x.transpose_(dim0=-1, dim1=0), (3, 2), (1, 3)),
        (lambda x: x.swapdims_(0, 1), (3, 2), (1, 3)),
        (lambda x: x.swapaxes_(axis0=0, axis1=1), (3, 2), (1, 3)),
        (lambda x: x.unsqueeze_(0), (1, 2, 3), (6, 3, 1)),
        (lambda x: x.unsqueeze_(dim=-1), (2, 3, 1), (3, 1, 1)),
        (lambda x: x.as_strided_((3, 2), (1, 3)), (3, 2), (1, 3)),
        (lambda x: x.as_strided_(size=(2,), stride=(2,), storage_offset=1), (2,), (2,)),
    ],
)
def test_inplace_view_rewrites_own_metadata(call, shape, stride):
    x = torch.arange(6.0).view(2, 3)
    v0 = x._version
    ref = x.numpy().copy()
    r = call(x)
    assert r is x
    assert tuple(x.shape) == shape and x.stride() == stride
    assert x._version == v0 + 1  # PyTorch bumps the version of an in-place view op too
    np.testing.assert_array_equal(
        x.numpy(),
        np.lib.stride_tricks.as_strided(ref.ravel()[x.storage_offset() :], shape, [s * 4 for s in stride]),
    )


def test_squeeze_inplace_forms():
    x = torch.zeros(1, 3, 1)
    assert tuple(x.squeeze_((0, 2)).shape) == (3,)
    x = torch.zeros(1, 3, 1)
    assert tuple(x.squeeze_(dim=0).shape) == (3, 1)
    x = torch.zeros(1, 3, 1)
    assert tuple(x.squeeze_().shape) == (3,)
    x = torch.zeros(3)
    assert tuple(x.t_().shape) == (3,)
    assert tuple(torch.tensor(1.0).t_().shape) == ()


def test_squeeze_dims_from_tensors():
    # PyTorch's parser reads a method's separate dims as one int list when the first is int-like (an int, a
    # one-element integral tensor, bool too) and an int list's elements from such tensors
    T = torch.tensor
    for name in ("squeeze", "squeeze_"):

        def f(*a, name=name):
            return getattr(torch.zeros(1, 3, 1), name)(*a)

        assert tuple(f(T(0), T(1), T(2)).shape) == (3,)
        assert tuple(f(T([0])).shape) == (3, 1)
        assert tuple(f(T(True)).shape) == (1, 3, 1)  # dim 1, of size 3
        assert tuple(f((T([2]), 0)).shape) == (3,)
        assert tuple(f(T(0), 2).shape) == (3,)
        for args, kind, message in (
            ((T(0), T(1), T(5)), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
            ((T(0), T(0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
            ((T([3], dtype=torch.uint8),), IndexError,
             "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
        ):  # fmt: skip
            with pytest.raises(kind) as e:
                f(*args)
            assert str(e.value) == message
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            f(T(0.5), 0)  # a float tensor opens no int list
    assert tuple(torch.squeeze(torch.zeros(1, 3, 1), (T(0), T(2))).shape) == (3,)


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (
            lambda: torch.randn(2, 3, 4).t_(),
            RuntimeError,
            "t_() expects a tensor with <= 2 dimensions, but self is 3D",
        ),
        (
            lambda: torch.randn(2, 3).transpose_(0, 5),
            IndexError,
            "expected to be in range of [-2, 1], but got 5",
        ),
        (lambda: torch.randn(2, 3).squeeze_(5), IndexError, "expected to be in range of [-2, 1], but got 5"),
        (
            lambda: torch.randn(2, 3).unsqueeze_(5),
            IndexError,
            "expected to be in range of [-3, 2], but got 5",
        ),
        (
            lambda: torch.randn(2, 3).as_strided_((4, 4), (1, 1)),
            RuntimeError,
            (
                "setStorage: sizes [4, 4], strides [1, 1], storage offset 0, and itemsize 4 requiring a storage "
                "size of 28 are out of bounds for storage of size 24"
            ),
        ),
        (
            lambda: torch.randn(2, 3).as_strided_((2,), (-1,)),
            RuntimeError,
            "as_strided: Negative strides are not supported at the moment, got strides: [-1]",
        ),
    ],
)
def test_inplace_view_errors_leave_tensor_alone(call, exc, words):
    with pytest.raises(exc) as e:
        call()
    assert words in str(e.value)


def test_bad_inplace_view_keeps_shape():
    x = torch.randn(2, 3)
    with pytest.raises(IndexError):
        x.transpose_(0, 5)
    assert tuple(x.shape) == (2, 3) and x.stride() == (3, 1)


@pytest.mark.parametrize(
    "op",
    [
        "t_()",
        "transpose_(0, 1)",
        "squeeze_()",
        "unsqueeze_(0)",
        "swapdims_(0, 1)",
        "as_strided_((3, 2), (1, 3))",
    ],
)
def test_inplace_view_of_leaf_requiring_grad_is_refused(op):
    a = torch.randn(2, 3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."
    ):
        eval("a." + op)
    assert tuple(a.shape) == (2, 3)
    c = a.view(3, 2)
    with pytest.raises(
        RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"
    ):
        c.t_()
    assert tuple(c.shape) == (3, 2)
    with torch.no_grad():  # allowed there, as in PyTorch
        a.t_()
    assert tuple(a.shape) == (3, 2) and a.is_leaf


def test_inplace_view_gradients():
    a = torch.randn(2, 3, requires_grad=True)
    b = a * 2
    b.t_()
    assert b.grad_fn is not None and tuple(b.shape) == (3, 2)
    (b * torch.arange(6.0).view(3, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 4, 8], [2, 6, 10]])

    a.grad = None
    b = a * 2
    b.unsqueeze_(0)
    (b * torch.arange(6.0).view(1, 2, 3)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 2, 4], [6, 8, 10]])

    a.grad = None
    b = a * 2
    b.as_strided_((3, 2), (1, 3))
    (b * torch.arange(6.0).view(3, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 4, 8], [2, 6, 10]])


def test_inplace_view_of_a_view_stays_a_view():
    a = torch.randn(2, 3, requires_grad=True)
    b = a * 1
    c = b[0]  # a view of b
    c.unsqueeze_(0)
    assert tuple(c.shape) == (1, 3)
    (c * torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[1, 2, 3], [0, 0, 0]])
    # an in-place write through the reshaped view still reaches the base's history
    a.grad = None
    b = a * 1
    c = b[1]
    c.unsqueeze_(0)
    c.mul_(10)
    b.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[1, 1, 1], [10, 10, 10]])


def test_inplace_view_under_no_grad_keeps_the_view_replayable():
    x = torch.zeros(2, 3)
    v = x[0]
    with torch.no_grad():
        v.unsqueeze_(0)
    w = torch.ones(1, 3, requires_grad=True)
    v.copy_(w * 2)  # written through v: x takes the history
    x.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[2, 2, 2]])
    np.testing.assert_array_equal(x.detach().numpy(), [[2, 2, 2], [0, 0, 0]])


# ---------------------------------------------------------------- version counters

# Tensor._version after each step: a fresh tensor starts at 0 whatever filled it, and each write (an in-place
# op, an assignment x[k] = v, an in-place view op) bumps the counter its views share by one.
VERSIONS = """
def cases(torch):
    out = {}
    for name, make in (
        ("zeros", lambda: torch.zeros(3)),
        ("ones", lambda: torch.ones(2, 3)),
        ("full", lambda: torch.full((3,), 2.0)),
        ("zeros int64", lambda: torch.zeros(3, dtype=torch.int64)),
        ("eye", lambda: torch.eye(3)),
        ("rand", lambda: torch.rand(3)),
        ("randn", lambda: torch.randn(3)),
        ("randint", lambda: torch.randint(0, 5, (3,))),
        ("clone", lambda: torch.arange(3.0).clone()),
        ("clone of a view", lambda: torch.arange(6.0).view(2, 3).t().clone()),
        ("to float64", lambda: torch.arange(3.0).to(torch.float64)),
        ("contiguous", lambda: torch.arange(6.0).view(2, 3).t().contiguous()),
        ("arange", lambda: torch.arange(3)),
        ("tensor", lambda: torch.tensor([1.0, 2.0, 3.0])),
    ):
        out[name] = make()._version
    a = torch.ones(4)
    log = [a._version]
    a.add_(1)
    log.append(a._version)
    a[0] = 5
    log.append(a._version)
    a[1:3] = torch.zeros(2)
    log.append(a._version)
    a[torch.tensor([0, 3])] = 2.0
    log.append(a._version)
    a[a > 10] = 0.0  # selects nothing: still one bump
    log.append(a._version)
    v = a[1:]
    v.mul_(2)
    log += [a._version, v._version]
    v[0] = 1
    log += [a._version, v._version]
    a.unsqueeze_(0)
    log.append(a._version)
    out["writes"] = log
    y = torch.ones(3, requires_grad=True) * 2
    w = [y._version]
    y[0] = 1
    w.append(y._version)
    y.add_(1)
    w.append(y._version)
    out["writes under grad"] = w
    return out
"""


def test_version_counters_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(VERSIONS, [("torch", torch)])
    assert ours == theirs


def test_version_counters_without_the_oracle():
    for t in (
        torch.zeros(3),
        torch.ones(2),
        torch.full((2,), 1.0),
        torch.randn(2),
        torch.arange(3.0).clone(),
    ):
        assert t._version == 0
    a = torch.ones(3)
    a.add_(1)
    assert a._version == 1
    a[0] = 2
    assert a._version == 2
    a[a > 5] = 0  # an empty selection
    assert a._version == 3


# ---------------------------------------------------------------- storage objects


def test_untyped_storage_identifies_shared_memory():
    a = torch.arange(6, dtype=torch.float32)
    b = a[2:].view(2, 2)
    us = a.untyped_storage()
    assert isinstance(us, torch.UntypedStorage)
    assert us.nbytes() == 24 and us.size() == 24 and len(us) == 24 and us.element_size() == 1
    assert us.data_ptr() == a.data_ptr()
    assert b.untyped_storage().data_ptr() == us.data_ptr() and b.storage_offset() == 2
    assert b.untyped_storage() == us
    assert a.clone().untyped_storage().data_ptr() != us.data_ptr()
    assert us.tolist()[4:8] == [0, 0, 128, 63]  # 1.0f little-endian
    assert str(us.device) == "cpu" and not us.is_cuda


def test_typed_storage():
    a = torch.arange(6, dtype=torch.float32)
    b = a[2:].view(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = b.storage()
    assert isinstance(s, torch.TypedStorage)
    assert s.size() == 6 and len(s) == 6 and s.element_size() == 4 and s.dtype == torch.float32
    assert s.nbytes() == 24 and s.data_ptr() == a.data_ptr()
    assert s[3] == 3.0 and s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert s.untyped().nbytes() == 24 and s._untyped_storage.data_ptr() == a.data_ptr()


def test_storage_of_meta_and_empty():
    m = torch.empty(3, device="meta")
    assert m.untyped_storage().data_ptr() == 0 and m.untyped_storage().nbytes() == 12
    assert torch.empty(0).untyped_storage().nbytes() == 0 and torch.empty(0).untyped_storage().data_ptr() == 0


def test_untyped_storage_constructor():
    s = torch.UntypedStorage(10)
    assert s.nbytes() == 10 and len(s) == 10


# ---------------------------------------------------------------- memory formats


def test_memory_format_objects():
    assert repr(torch.channels_last) == "torch.channels_last"
    assert str(torch.contiguous_format) == "torch.contiguous_format"
    assert isinstance(torch.preserve_format, torch.memory_format)
    assert torch.channels_last == torch.channels_last and torch.channels_last != torch.contiguous_format
    assert {torch.channels_last: 1}[torch.channels_last] == 1
    import pickle

    assert pickle.loads(pickle.dumps(torch.channels_last_3d)) is torch.channels_last_3d


def test_contiguous_channels_last_strides_and_values():
    x = torch.arange(24.0).reshape(1, 2, 3, 4)
    y = x.contiguous(memory_format=torch.channels_last)
    assert y.stride() == (24, 1, 8, 2)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(y, x)
    assert y.contiguous(memory_format=torch.channels_last) is y
    assert y.contiguous().stride() == (24, 12, 4, 1)
    z = torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d)
    assert z.stride() == (360, 1, 90, 18, 3) and z.is_contiguous(memory_format=torch.channels_last_3d)
    # already channels-last (C == 1): returned as is, as PyTorch
    w = torch.zeros(2, 1, 3, 4)
    assert w.is_contiguous(memory_format=torch.channels_last)
    assert w.contiguous(memory_format=torch.channels_last).stride() == (12, 12, 4, 1)
    assert torch.zeros(2, 3, 1, 1).contiguous(memory_format=torch.channels_last).stride() == (3, 1, 1, 1)


def test_is_contiguous_memory_format_edge_cases():
    assert not torch.zeros(2, 3, 4).is_contiguous(memory_format=torch.channels_last)
    assert not torch.tensor(1.0).is_contiguous(memory_format=torch.channels_last)
    assert not torch.empty(0, 2, 3, 4).is_contiguous(memory_format=torch.channels_last)
    assert torch.empty(0, 2, 3, 4, memory_format=torch.channels_last).stride() == (24, 1, 8, 2)
    x = torch.zeros(1, 2, 3, 4)
    assert x.is_contiguous(memory_format=torch.preserve_format)
    assert not x.contiguous(memory_format=torch.channels_last).is_contiguous(
        memory_format=torch.preserve_format
    )
    assert not x.contiguous(memory_format=torch.channels_last).is_contiguous(
        memory_format=torch.channels_last_3d
    )


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (lambda x: torch.zeros(2, 3, 4).contiguous(memory_format=torch.channels_last), RuntimeError,
         "required rank 4 tensor to use channels_last format"),
        (lambda x: x.contiguous(memory_format=torch.channels_last_3d), RuntimeError,
         "required rank 5 tensor to use channels_last_3d format"),
        (lambda x: x.transpose(2, 3).contiguous(memory_format=torch.preserve_format), RuntimeError,
         "preserve memory format is unsupported by the contiguous operator"),
        (lambda x: x.is_contiguous(memory_format=3), TypeError,
         "is_contiguous(): argument 'memory_format' must be torch.memory_format, not int"),
        (lambda x: x.contiguous(memory_format="x"), TypeError,
         "contiguous(): argument 'memory_format' must be torch.memory_format, not str"),
        (lambda x: x.contiguous(memory_format=None), TypeError,
         "contiguous(): argument 'memory_format' must be torch.memory_format, not NoneType"),
        (lambda x: torch.empty(2, 3, 4, memory_format=torch.channels_last), RuntimeError,
         "required rank 4 tensor to use channels_last format"),
        (lambda x: torch.empty(2, 3, 4, memory_format=torch.preserve_format), RuntimeError,
         "unsupported memory format Preserve"),
        (lambda x: torch.zeros(2, 3, 4).clone(memory_format=torch.channels_last), RuntimeError,
         "required rank 4 tensor to use channels_last format"),
    ],
)  # fmt: skip
def test_memory_format_errors(call, exc, words):
    with pytest.raises(exc) as e:
        call(torch.zeros(1, 2, 3, 4))
    assert words in str(e.value)


def test_layout_through_clone_to_and_like_factories():
    x = torch.arange(24.0).reshape(1, 2, 3, 4)
    y = x.contiguous(memory_format=torch.channels_last)
    cl = (24, 1, 8, 2)
    assert y.clone().stride() == cl
    assert y.clone(memory_format=torch.contiguous_format).stride() == (24, 12, 4, 1)
    assert x.clone(memory_format=torch.channels_last).stride() == cl
    assert torch.clone(x, memory_format=torch.channels_last).stride() == cl
    assert torch.empty_like(y).stride() == cl
    assert torch.empty_like(y, memory_format=torch.contiguous_format).stride() == (24, 12, 4, 1)
    assert torch.zeros_like(x, memory_format=torch.channels_last).stride() == cl
    assert torch.ones_like(y).stride() == cl and torch.equal(torch.ones_like(y), torch.ones(1, 2, 3, 4))
    assert torch.full_like(y, 2.0).stride() == cl
    assert torch.rand_like(x, memory_format=torch.channels_last).stride() == cl
    assert torch.empty(1, 2, 3, 4, memory_format=torch.channels_last).stride() == cl
    assert x.to(memory_format=torch.channels_last).stride() == cl
    assert x.to(torch.float64, memory_format=torch.channels_last).stride() == cl
    assert y.to("cpu", torch.float64).stride() == cl  # a conversion preserves the layout
    assert y.to(torch.float64).dtype == torch.float64 and torch.equal(y.double(), x.double())
    assert x.float(memory_format=torch.channels_last).stride() == cl
    assert x.double(memory_format=torch.channels_last).stride() == cl
    assert y.cpu(memory_format=torch.contiguous_format).stride() == (24, 12, 4, 1)
    assert y.cpu() is y and x.contiguous(memory_format=torch.preserve_format) is x
    assert y.to(torch.float32) is y
    t = torch.zeros(3, 4).t()
    assert t.to(torch.float32) is t  # no conversion, no layout asked for: the tensor itself


def test_channels_last_values_through_ops_and_grad():
    x = torch.randn(2, 3, 5, 4, dtype=torch.float64)
    y = x.contiguous(memory_format=torch.channels_last)
    w = torch.randn(6, 3, 3, 3, dtype=torch.float64)
    for f in (
        lambda t: t + 1,
        lambda t: torch.relu(t) * t,
        lambda t: t.sum(1),
        lambda t: torch.nn.functional.conv2d(t, w, padding=1),
        lambda t: torch.nn.functional.max_pool2d(t, 2),
        lambda t: torch.nn.functional.batch_norm(t, None, None, training=True),
        lambda t: t.reshape(2, -1),
        lambda t: t.permute(0, 2, 3, 1).reshape(-1, 3),
    ):
        np.testing.assert_allclose(f(y).numpy(), f(x).numpy(), rtol=1e-12, atol=1e-12)
    a = torch.randn(1, 2, 3, 4, requires_grad=True)
    b = a.contiguous(memory_format=torch.channels_last)
    (b * torch.arange(24.0).view(1, 2, 3, 4)).sum().backward()
    np.testing.assert_array_equal(a.grad.flatten().numpy(), np.arange(24.0))


def test_module_to_channels_last():
    m = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3))
    x = torch.randn(2, 2, 4, 4)
    ref = m(x)
    assert m.to(memory_format=torch.channels_last) is m
    assert m[0].weight.stride() == (2, 1, 2, 2) and isinstance(m[0].weight, torch.nn.Parameter)
    assert m[0].bias.stride() == (1,)
    out = m(x.to(memory_format=torch.channels_last))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert m[0].weight.grad is not None


# ---------------------------------------------------------------- empty_strided / new_empty_strided


def test_new_empty_strided():
    t = torch.zeros(2, dtype=torch.float64)
    r = t.new_empty_strided((2, 3), (1, 2))
    assert tuple(r.shape) == (2, 3) and r.stride() == (1, 2) and r.dtype == torch.float64
    assert r.storage_offset() == 0 and r.untyped_storage().nbytes() == 48
    assert t.new_empty_strided((2, 3), (3, 1), dtype=torch.int32).dtype == torch.int32
    assert t.new_empty_strided((2, 3), (3, 1), requires_grad=True).requires_grad
    z = t.new_empty_strided((0, 3), (3, 1))
    assert z.stride() == (3, 1) and z.untyped_storage().nbytes() == 0
    assert t.new_empty_strided((2, 3), (0, 1)).untyped_storage().nbytes() == 24
    e = torch.empty_strided((2, 3), (1, 2), requires_grad=True)
    assert e.is_leaf and e.untyped_storage().nbytes() == 24
    assert tuple(torch.empty_strided(torch.Size([2, 2]), (2, 1)).shape) == (2, 2)


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (lambda t: t.new_empty_strided((2, 3), (3,)), RuntimeError,
         "dimensionality of sizes (2) must match dimensionality of strides (1)"),
        (lambda t: t.new_empty_strided((2, 3), (3, -1)), RuntimeError,
         "Storage size calculation overflowed with sizes=[2, 3] and strides=[3, -1]"),
        (lambda t: t.new_empty_strided((2, -3), (3, 1)), RuntimeError,
         "Trying to create tensor with negative dimension -3: [2, -3]"),
        (lambda t: t.new_empty_strided((2, 3)), TypeError,
         'new_empty_strided() missing 1 required positional arguments: "stride"'),
        (lambda t: t.new_empty_strided((2, 3), 1), TypeError,
         "new_empty_strided(): argument 'stride' (position 2) must be tuple of ints, not int"),
        (lambda t: torch.empty_strided(4, 1), TypeError,
         "empty_strided(): argument 'size' (position 1) must be tuple of ints, not int"),
    ],
)  # fmt: skip
def test_empty_strided_errors(call, exc, words):
    with pytest.raises(exc) as e:
        call(torch.zeros(2))
    assert words in str(e.value)


_DIM_ORDER = r"""
def cases(torch):
    def run(f):
        try:
            return list(f())
        except Exception as e:
            return [type(e).__name__, str(e)]
    x = torch.zeros(2, 3, 4, 5)
    tensors = [
        x, x.permute(0, 2, 3, 1), x.contiguous(memory_format=torch.channels_last), x[:, :, :1].expand(2, 3, 4, 5),
        torch.tensor(1.0), torch.zeros(5), torch.zeros(2, 1, 4), torch.zeros(2, 1, 4).transpose(0, 1),
        x.transpose(1, 3), torch.zeros(3, 3)[::2, ::2], torch.zeros(4, 4).t(),
        torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d), torch.zeros(0, 3),
        torch.zeros(3, 4)[:, 1:3], torch.zeros(2, 2, 2).permute(2, 0, 1), torch.zeros(1, 4, 1, 1),
        torch.zeros(2, 3, 1, 1).contiguous(memory_format=torch.channels_last),
    ]
    out = []
    for t in tensors:
        out.append(run(lambda: t.dim_order()))
        out.append(run(lambda: t.dim_order(ambiguity_check=True)))
        out.append(run(lambda: t.dim_order(ambiguity_check=[torch.contiguous_format, torch.channels_last])))
    out.append(run(lambda: x.dim_order(ambiguity_check=3)))
    out.append(run(lambda: x.dim_order(ambiguity_check=[3])))
    out.append(run(lambda: x.dim_order(ambiguity_check=(torch.channels_last,))))
    return out
"""


def test_dim_order_as_pytorch():
    # strides that tie, size-1 dims, broadcast (stride 0) dims and the channels-last layouts, with the checks
    ours, theirs = cases_here_and_in_pytorch(_DIM_ORDER, [("torch", torch)])
    assert ours == theirs
