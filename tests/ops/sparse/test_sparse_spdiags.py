"""torch.sparse.spdiags against scipy.sparse.spdiags (values, shapes, offsets out of range), PyTorch's layout of
the result and its errors, and the gradient to the diagonals."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck

scipy_sparse = pytest.importorskip("scipy.sparse")

D = np.arange(1.0, 13.0).reshape(3, 4)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (6, 2), (1, 7), (5, 1), (0, 3), (4, 0)])
@pytest.mark.parametrize("offsets", [[0, -1, 2], [5, 0, 1], [-3, 3, 1], [0, -6, 6]])
@pytest.mark.parametrize("layout", [None, torch.sparse_coo, torch.sparse_csr])
def test_against_scipy(shape, offsets, layout):
    ref = scipy_sparse.spdiags(D, offsets, *shape).toarray()
    got = torch.sparse.spdiags(torch.tensor(D), torch.tensor(offsets), shape, layout=layout)
    assert got.layout == (layout or torch.sparse_coo)
    assert got.dtype == torch.float64 and tuple(got.shape) == shape
    np.testing.assert_array_equal(got.to_dense().numpy(), ref)


def test_pattern_and_dtypes():
    # PyTorch's entries, diagonal by diagonal in the order of offsets (uncoalesced), and its CSR
    got = torch.sparse.spdiags(torch.arange(1.0, 13).reshape(3, 4), torch.tensor([0, -1, 2]), (4, 4))
    assert not got.is_coalesced()
    assert got._indices().tolist() == [[0, 1, 2, 3, 1, 2, 3, 0, 1], [0, 1, 2, 3, 0, 1, 2, 2, 3]]
    assert got._values().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 11.0, 12.0]
    csr = torch.sparse.spdiags(
        torch.arange(1.0, 13).reshape(3, 4), torch.tensor([0, -1, 2]), (4, 4), layout=torch.sparse_csr
    )
    assert csr.crow_indices().tolist() == [0, 2, 5, 7, 9]
    assert csr.col_indices().tolist() == [0, 2, 0, 1, 3, 1, 2, 2, 3]
    ints = torch.sparse.spdiags(
        torch.arange(1, 13, dtype=torch.int32).reshape(3, 4), torch.tensor([0, 1, 2]), (2, 2)
    )
    assert ints.dtype == torch.int32 and ints.to_dense().tolist() == [[1, 6], [0, 2]]
    # one diagonal as a vector, with a scalar or one-element offset
    for off in (torch.tensor(1), torch.tensor([1])):
        one = torch.sparse.spdiags(torch.tensor([1.0, 2.0, 3.0, 4.0]), off, (4, 4)).to_dense()
        np.testing.assert_array_equal(one.numpy(), np.diag([2.0, 3.0, 4.0], 1))
    empty = torch.sparse.spdiags(torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64), (3, 4))
    assert empty._nnz() == 0 and empty.to_dense().abs().sum().item() == 0


def test_gradient():
    x = torch.tensor(D, requires_grad=True)
    offsets = torch.tensor([0, -1, 2])
    assert gradcheck(lambda t: torch.sparse.spdiags(t, offsets, (4, 4)).to_dense(), (x,))
    torch.sparse.spdiags(x, offsets, (4, 4)).to_dense().sum().backward()
    # only the stored entries of each diagonal reach the matrix
    assert x.grad.tolist() == [[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 1]]


@pytest.mark.parametrize(
    "args, msg",
    [
        ((torch.zeros(3, 2, 2), torch.tensor([0, 1, 2]), (4, 4)), "Diagonals must be vector or matrix"),
        ((torch.zeros(3, 4), torch.tensor([[0], [1], [2]]), (4, 4)), "Offsets must be scalar or vector"),
        ((torch.zeros(3, 4), torch.tensor([0, 1, 2]), (4, 4, 4)), "Output shape must be 2d"),
        (
            (torch.zeros(3, 4), torch.tensor([0, 1]), (4, 4)),
            r"Number of diagonals \(3\) does not match the number of offsets \(2\)",
        ),
        (
            (torch.zeros(3, 4), torch.tensor([0, 1, 2], dtype=torch.int32), (4, 4)),
            "Offset Tensor must have dtype Long but got Int",
        ),
        (
            (torch.zeros(3, 4), torch.tensor([0.0, 1, 2]), (4, 4)),
            "Offset Tensor must have dtype Long but got Float",
        ),
        ((torch.zeros(3, 4), torch.tensor([0, 0, 1]), (4, 4)), "Offset Tensor contains duplicate values"),
    ],
)
def test_errors(args, msg):
    with pytest.raises(RuntimeError, match=msg):
        torch.sparse.spdiags(*args)


def test_layout_errors():
    d, o = torch.zeros(3, 4), torch.tensor([0, 1, 2])
    with pytest.raises(
        RuntimeError, match=r"Only output layouts \(Sparse, SparseCsc, SparseCsr\) are supported, "
    ):
        torch.sparse.spdiags(d, o, (4, 4), layout=torch.strided)
    with pytest.raises(RuntimeError, match="got SparseBsr"):
        torch.sparse.spdiags(d, o, (4, 4), layout=torch.sparse_bsr)
    with pytest.raises(NotImplementedError, match="no sparse CSC layout"):
        torch.sparse.spdiags(d, o, (4, 4), layout=torch.sparse_csc)
