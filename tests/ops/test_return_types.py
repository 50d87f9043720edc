"""minitorch.return_types (PyTorch's torch.return_types): the named tuples that max/min/sort/topk/kthvalue/median/
mode return are its classes; they construct the structseq way, pickle, and compare as tuples. Also
torch.tensor() of a list of tensors: one-element tensors are scalars there, others raise PyTorch's errors."""

import pickle

import numpy as np
import pytest

import minitorch
from minitorch import return_types

X = minitorch.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, 4.0, 4.0, -1.0]])

CALLS = {
    "max": lambda: minitorch.max(X, 1),
    "min": lambda: X.min(1),
    "sort": lambda: minitorch.sort(X, 1),
    "topk": lambda: X.topk(2),
    "kthvalue": lambda: minitorch.kthvalue(X, 2, 1),
    "median": lambda: X.median(1),
    "mode": lambda: minitorch.mode(X, 1),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_results_are_return_types(name):
    r = CALLS[name]()
    cls = getattr(return_types, name)
    assert type(r) is cls
    assert isinstance(r, tuple)
    assert type(r).__module__ == "minitorch.return_types"
    values, indices = r
    assert values is r.values and indices is r.indices
    assert r.n_fields == 2 and r.n_sequence_fields == 2
    # the values are the input at the indices
    np.testing.assert_array_equal(
        np.take_along_axis(X.numpy(), indices.numpy().reshape(2, -1), 1).reshape(values.shape), values.numpy()
    )
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is cls
    assert back.values.tolist() == values.tolist()
    assert repr(r).startswith(f"minitorch.return_types.{name}(\nvalues=tensor(")


def test_construct_like_pytorch():
    v, i = minitorch.tensor([3.0, 2.0]), minitorch.tensor([0, 2])
    r = return_types.topk((v, i))  # PyTorch's structseq constructor: one sequence
    assert r.values is v and r.indices is i
    r2 = return_types.topk([v, i], {})
    assert r2.indices is i
    r3 = return_types.topk(v, i)  # the namedtuple spelling works too
    assert tuple(r3) == (v, i)
    assert return_types.topk(values=v, indices=i).values is v
    assert return_types.aminmax((1, 2)).max == 2
    assert return_types.svd((1, 2, 3)).V == 3
    with pytest.raises(TypeError, match="takes a 2-sequence \\(3-sequence given\\)"):
        return_types.sort((v, i, v))


def test_tensor_of_one_element_tensors():
    t = minitorch.tensor([minitorch.tensor([1.0]), minitorch.tensor(2.0), minitorch.tensor([[3.0]])])
    assert t.tolist() == [1.0, 2.0, 3.0] and t.dtype == minitorch.float32
    t = minitorch.tensor([[minitorch.tensor(1), 2], [3, minitorch.tensor([4])]])
    assert t.tolist() == [[1, 2], [3, 4]] and t.dtype == minitorch.int64
    assert minitorch.tensor([np.array([1, 2]), np.array([3, 4])]).tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize(
    "make,exc,msg",
    [
        (
            lambda: [minitorch.tensor([1.0, 2.0]), minitorch.tensor([3.0, 4.0])],
            ValueError,
            "only one element tensors can be converted to Python scalars",
        ),
        (
            lambda: [minitorch.zeros(0)],
            ValueError,
            "only one element tensors can be converted to Python scalars",
        ),
        (
            lambda: [minitorch.tensor([1, 2]), minitorch.tensor([3, 4])],
            TypeError,
            "only integer tensors of a single element can be converted to an index",
        ),
        (
            lambda: (minitorch.tensor([True, False]),),
            TypeError,
            "only integer tensors of a single element can be converted to an index",
        ),
    ],
)
def test_tensor_of_multi_element_tensors_raises(make, exc, msg):
    with pytest.raises(exc, match=msg):
        minitorch.tensor(make())
    with pytest.raises(exc, match=msg):
        minitorch.as_tensor(make())
