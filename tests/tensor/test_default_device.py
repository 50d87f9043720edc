"""set_default_device / get_default_device, `with torch.device(...)`, set_default_dtype, and Python
sequences PyTorch accepts as tensor data and index keys (range, tuples, 0-dim tensors, NumPy scalars)."""

import threading

import numpy as np
import pytest
from utils import to_np

import minitorch
from minitorch import nn


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    minitorch.set_default_device(None)
    minitorch.set_default_dtype(minitorch.float32)


def factories(dev=None):
    return {
        "tensor": minitorch.tensor([1.0, 2.0]),
        "as_tensor": minitorch.as_tensor([1, 2]),
        "zeros": minitorch.zeros(2),
        "ones": minitorch.ones(2, 3),
        "empty": minitorch.empty(2),
        "full": minitorch.full((2,), 1.5),
        "rand": minitorch.rand(2),
        "randn": minitorch.randn(2),
        "randint": minitorch.randint(0, 5, (3,)),
        "randperm": minitorch.randperm(4),
        "arange": minitorch.arange(3),
        "linspace": minitorch.linspace(0, 1, 3),
        "eye": minitorch.eye(2),
        "tril_indices": minitorch.tril_indices(3, 3),
        "linear weight": nn.Linear(2, 3).weight,
        "conv bias": nn.Conv2d(1, 2, 3).bias,
    }


def test_default_is_cpu():
    assert minitorch.get_default_device() == minitorch.device("cpu")
    for name, t in factories().items():
        assert t.device.type == "cpu", name


def test_set_default_device(device):
    minitorch.set_default_device(device)
    assert minitorch.get_default_device().type == device
    for name, t in factories().items():
        assert t.device.type == device, name
    # an explicit device, like-factories and from_numpy are not affected
    assert minitorch.zeros(2, device="cpu").device.type == "cpu"
    cpu = minitorch.ones(2, device="cpu")
    assert minitorch.zeros_like(cpu).device.type == "cpu"
    assert minitorch.from_numpy(np.ones(2)).device.type == "cpu"
    minitorch.set_default_device(None)
    assert minitorch.zeros(1).device.type == "cpu"


def test_default_device_values_unchanged(device):
    minitorch.set_default_device(device)
    t = minitorch.tensor([[1, 2], [3, 4]])
    assert t.tolist() == [[1, 2], [3, 4]] and t.dtype == minitorch.int64
    assert to_np(minitorch.arange(1, 7, 2)).tolist() == [1, 3, 5]


def test_device_context_manager(device):
    d = minitorch.device(device)
    with d as entered:
        assert entered is d
        assert minitorch.zeros(2).device.type == device
        assert minitorch.get_default_device().type == device
        with minitorch.device("cpu"):
            assert minitorch.ones(1).device.type == "cpu"
        assert minitorch.randn(3).device.type == device
        assert nn.Linear(2, 2).weight.device.type == device
    assert minitorch.zeros(2).device.type == "cpu"
    # restored on an exception too
    with pytest.raises(ValueError), minitorch.device(device):
        raise ValueError
    assert minitorch.get_default_device().type == "cpu"


def test_default_device_is_thread_local():
    seen = []
    minitorch.set_default_device("cuda")  # only recorded: no tensor is made, so no GPU is needed
    assert minitorch.get_default_device().type == "cuda"
    t = threading.Thread(target=lambda: seen.append(minitorch.get_default_device().type))
    t.start()
    t.join()
    assert seen == ["cpu"]


def test_set_default_device_errors():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        minitorch.set_default_device("foo")


def test_default_dtype_float64():
    minitorch.set_default_dtype(minitorch.float64)
    assert minitorch.get_default_dtype() == minitorch.float64
    assert minitorch.tensor([1.0]).dtype == minitorch.float64
    assert minitorch.tensor(1.5).dtype == minitorch.float64
    assert minitorch.zeros(2).dtype == minitorch.float64
    assert minitorch.randn(2).dtype == minitorch.float64
    assert minitorch.full((2,), 1.5).dtype == minitorch.float64
    assert minitorch.arange(0.0, 3).dtype == minitorch.float64
    assert minitorch.arange(3).dtype == minitorch.int64
    assert minitorch.linspace(0, 1, 3).dtype == minitorch.float64
    assert minitorch.eye(2).dtype == minitorch.float64
    assert nn.Linear(2, 2).weight.dtype == minitorch.float64
    assert (minitorch.ones(2, dtype=minitorch.int64) * 1.5).dtype == minitorch.float64
    minitorch.set_default_dtype(minitorch.float16)
    assert minitorch.tensor([1.0]).dtype == minitorch.float16
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        minitorch.set_default_dtype(minitorch.int64)


# ---- sequences as data and as index keys -------------------------------------------------------------------


def test_range_as_data(device):
    t = minitorch.tensor(range(3), device=device)
    assert t.dtype == minitorch.int64 and t.tolist() == [0, 1, 2]
    t = minitorch.tensor([range(2), range(2, 4)], dtype=minitorch.float32)
    assert t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert minitorch.as_tensor(range(1, 4)).tolist() == [1, 2, 3]
    assert minitorch.tensor(range(0)).shape == (0,)


def test_mixed_sequences_as_data():
    t = minitorch.tensor((1, 2.5))
    assert t.dtype == minitorch.float32 and t.tolist() == [1.0, 2.5]
    t = minitorch.tensor([minitorch.tensor(1), minitorch.tensor(2)])
    assert t.dtype == minitorch.int64 and t.tolist() == [1, 2]
    t = minitorch.tensor([np.float64(1.5), np.float64(2.0)])
    assert t.dtype == minitorch.float64
    t = minitorch.tensor([np.int32(3), 4])  # PyTorch reads NumPy integer scalars in a list as Python ints
    assert t.dtype == minitorch.int64 and t.tolist() == [3, 4]
    assert minitorch.tensor([np.float64(1.5), 2]).dtype == minitorch.float64
    t = minitorch.tensor([minitorch.tensor(0.5), 1])
    assert t.dtype == minitorch.float32


def test_range_and_sequences_as_index(device):
    a = np.arange(20.0).reshape(4, 5)
    x = minitorch.tensor(a, device=device)
    t = minitorch.tensor([1, 0, 4, 2], device=device)
    assert np.array_equal(to_np(x[range(4), t]), a[range(4), [1, 0, 4, 2]])
    assert np.array_equal(to_np(x[[0, 2]]), a[[0, 2]])
    assert np.array_equal(to_np(x[(0, 2)]), a[(0, 2)])
    assert np.array_equal(to_np(x[range(1, 3)]), a[1:3])
    assert np.array_equal(to_np(x[:, range(0, 5, 2)]), a[:, 0:5:2])
    assert np.array_equal(to_np(x[np.int64(1)]), a[1])
    assert np.array_equal(to_np(x[[np.int64(3), np.int64(1)]]), a[[3, 1]])
    assert np.array_equal(to_np(x[minitorch.tensor(2)]), a[2])
    y = x.clone()
    y[range(4), t] = -1.0
    b = a.copy()
    b[range(4), [1, 0, 4, 2]] = -1.0
    assert np.array_equal(to_np(y), b)
    with pytest.raises(IndexError):
        x[range(5)]
