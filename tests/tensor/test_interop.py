"""Interop: DLPack both ways (NumPy always; PyTorch and CuPy where installed, on every device they share),
__cuda_array_interface__, and the protocol's errors."""

import gc

import numpy as np
import pytest
from conftest import REAL_TORCH as pt
from utils import ALL_DTYPES, NP_OF, make_array, make_tensor, to_np

import minitorch

HAS_CUDA = minitorch.cuda.is_available()
NUMPY_DTYPES = [d for d in ALL_DTYPES if d != minitorch.bfloat16]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "expanded"])
def test_numpy_views_our_memory(dtype, layout):
    a = make_array((4, 5), dtype, np.random.default_rng(0))
    t = make_tensor(a, dtype, "cpu", layout)
    n = np.from_dlpack(t)
    np.testing.assert_array_equal(n.astype(np.float64), to_np(t).astype(np.float64))
    assert n.strides == tuple(s * t.element_size() for s in t.stride())
    if layout != "expanded":
        n[...] = 0  # same memory: the tensor sees the write
        assert not to_np(t).any()


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=str)
def test_we_view_numpy_memory(dtype):
    base = np.ascontiguousarray(make_array((3, 6), dtype, np.random.default_rng(1)).astype(NP_OF[dtype]))
    t = minitorch.from_dlpack(base[:, 1::2])
    assert t.dtype == dtype and t.shape == (3, 3) and t.stride() == (6, 2)
    np.testing.assert_array_equal(to_np(t), base[:, 1::2].astype(to_np(t).dtype))
    base[0, 1] = 1
    assert to_np(t)[0, 0] == 1


def test_lifetimes_outlast_the_other_side():
    t = minitorch.arange(1000.0)
    n = np.from_dlpack(t)
    del t
    gc.collect()
    assert n[999] == 999.0
    a = np.arange(1000.0)
    t = minitorch.from_dlpack(a)
    del a
    gc.collect()
    assert t[999].item() == 999.0


def test_scalars_empty_and_bfloat16():
    z = minitorch.tensor(2.5)
    assert np.from_dlpack(z).shape == () and float(np.from_dlpack(z)) == 2.5
    e = minitorch.empty(0, 3)
    assert np.from_dlpack(e).shape == (0, 3)
    assert minitorch.from_dlpack(np.empty((2, 0))).shape == (2, 0)
    b = minitorch.tensor([1.5, -2.0], dtype=minitorch.bfloat16)
    r = minitorch.from_dlpack(b.__dlpack__())  # minitorch to minitorch keeps bfloat16
    assert r.dtype == minitorch.bfloat16 and r.tolist() == [1.5, -2.0]
    with pytest.raises((BufferError, TypeError, ValueError, RuntimeError), match="(?i)dtype"):
        np.from_dlpack(b)  # NumPy has no bfloat16: its error, and our capsule is freed unconsumed


def test_to_dlpack_shares_memory_of_any_layout_and_dtype():
    """torch.to_dlpack (its plain-tensor path straight to the capsule): the same memory, strides and values for a
    transposed, an empty, a 0-d and a requires-grad tensor of each dtype; a Parameter takes the general path"""
    base = minitorch.arange(12.0).reshape(3, 4)
    cases = [
        base.t(),
        base[:, 1:3],
        minitorch.empty(0, 5),
        minitorch.tensor(2.5),
        base.clone().requires_grad_(),
    ]
    cases += [base.to(dt) for dt in (minitorch.int64, minitorch.int8, minitorch.bool, minitorch.float16)]
    cases.append(minitorch.nn.Parameter(base.clone()))
    for t in cases:
        r = minitorch.from_dlpack(minitorch.to_dlpack(t))
        assert r.dtype == t.dtype and r.shape == t.shape and r.stride() == t.stride()
        assert r.data_ptr() == t.data_ptr() or t.numel() == 0
        assert r.tolist() == t.tolist()
        assert not r.requires_grad


def test_capsules_and_protocol_errors():
    t = minitorch.arange(4.0)
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(1, 0)))
    cap = t.__dlpack__()
    assert '"dltensor"' in repr(cap)
    r = minitorch.from_dlpack(cap)
    assert r.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="can be consumed only once"):
        minitorch.from_dlpack(cap)
    assert minitorch.utils.dlpack.from_dlpack(minitorch.utils.dlpack.to_dlpack(t)).tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        minitorch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="negative strides"):
        minitorch.from_dlpack(np.arange(5.0)[::-1])
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0), copy=False)
    c = minitorch.from_dlpack(t.__dlpack__(copy=True))
    c[0] = 9
    assert t[0].item() == 0.0  # copy=True exported a copy
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        _ = t.__cuda_array_interface__


@pytest.mark.skipif(pt is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", "bool"])
def test_pytorch_both_ways(device, dtype):
    t = minitorch.arange(12, device=device).reshape(3, 4).to(getattr(minitorch, dtype))
    p = pt.from_dlpack(t)
    assert str(p.device).startswith(device) and p.dtype == getattr(pt, dtype)
    np.testing.assert_array_equal(p.cpu().double().numpy(), to_np(t).astype(np.float64))
    p.fill_(1)
    assert to_np(t).all()  # shared memory
    q = pt.arange(6, device=device).reshape(2, 3).to(getattr(pt, dtype)).t()
    m = minitorch.from_dlpack(q)
    assert m.dtype == getattr(minitorch, dtype) and m.stride() == q.stride() and m.device.type == device
    np.testing.assert_array_equal(to_np(m).astype(np.float64), q.cpu().double().numpy())


@pytest.mark.skipif(not HAS_CUDA, reason="needs a GPU")
def test_cuda_array_interface_and_streams():
    t = minitorch.arange(12.0, device="cuda").reshape(3, 4)
    cai = t.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["shape"] == (3, 4) and cai["strides"] is None
    assert cai["data"] == (t.data_ptr(), False) and cai["version"] == 3
    assert t.t().__cuda_array_interface__["strides"] == (4, 16)
    assert t.bfloat16().__cuda_array_interface__["typestr"] == "<V2"  # PyTorch's choice (two opaque bytes)
    assert t.__dlpack_device__() == (2, 0)
    s = minitorch.cuda.Stream()
    r = minitorch.from_dlpack(t.__dlpack__(stream=s.cuda_stream))  # the consumer stream waits for ours
    assert r.cpu().tolist() == t.cpu().tolist()
    with pytest.raises(RuntimeError, match="requires grad"):
        _ = minitorch.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__


@pytest.mark.skipif(not HAS_CUDA, reason="needs a GPU")
def test_cupy_both_ways():
    cp = pytest.importorskip("cupy")
    t = minitorch.arange(10.0, device="cuda")
    c = cp.asarray(t)  # through __cuda_array_interface__
    c[0] = 5
    assert t[0].item() == 5.0
    d = cp.from_dlpack(t)
    assert float(d[9]) == 9.0
    back = minitorch.from_dlpack(cp.arange(4, dtype=cp.float32))
    assert back.is_cuda and back.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_empty_tensors_strides_as_pytorch():
    # a list gives contiguous strides; an empty NumPy array keeps NumPy's (zeros in NumPy 2), and copies of an
    # empty tensor keep its strides (PyTorch's preserve_format: every empty tensor is "dense")
    assert minitorch.tensor([], dtype=minitorch.bool).stride() == (1,)
    assert minitorch.tensor([[]]).stride() == (1, 1)
    for a in (np.zeros((0, 3)), np.zeros((2, 0)), np.zeros((3, 0, 2))[:, :, ::2], np.zeros((0, 4)).T):
        want = tuple(s // a.itemsize for s in a.strides)
        t = minitorch.from_numpy(a)
        assert t.stride() == want and minitorch.tensor(a).stride() == want
        assert t.clone().stride() == want and t.float().stride() == want
    e = minitorch.empty(0, 3).t()
    assert e.clone().stride() == (1, 3) and e.double().stride() == (1, 3)
    z = minitorch.from_numpy(np.zeros((0, 3)))
    z.copy_(minitorch.zeros(0, 3))  # writing into zero strides is fine when there is no element
    z.add_(1)
