"""Compressed sparse layouts (CSR, CSC, BSR, BSC; batched and hybrid): construction, conversions, transposes,
reprs, invariant errors and the ops over them, against PyTorch (the oracle, where installed) and always against
dense NumPy and scipy.sparse, with gradients to the values by gradcheck in float64."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from utils import cases_here_and_in_pytorch

import minitorch
from minitorch import sparse
from minitorch.autograd import gradcheck

LAYOUTS = {
    "csr": ("crow_indices", "col_indices"),
    "csc": ("ccol_indices", "row_indices"),
    "bsr": ("crow_indices", "col_indices"),
    "bsc": ("ccol_indices", "row_indices"),
}


def npy(t):
    return t.detach().cpu().double().numpy()


def random_dense(shape, density=0.4, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    x[rng.random(shape) > density] = 0
    return x.astype(dtype)


def convert(t, layout, blocksize=(2, 2), dense_dim=None):
    if layout in ("bsr", "bsc"):
        return getattr(t, f"to_sparse_{layout}")(blocksize, dense_dim=dense_dim)
    return getattr(t, f"to_sparse_{layout}")(dense_dim=dense_dim)


def scipy_matrix(x, layout, blocksize=(2, 2)):
    """scipy's form of a 2-D array in `layout` (bsc as the bsr matrix of the transpose)."""
    if layout == "csr":
        return sp.csr_matrix(x)
    if layout == "csc":
        return sp.csc_matrix(x)
    if layout == "bsr":
        return sp.bsr_matrix(x, blocksize=blocksize)
    return sp.bsr_matrix(x.T, blocksize=blocksize[::-1])


def batched_blocks(x, blocksize):
    """(batches, block rows, block cols, br, bc) of a (batches, rows, cols) array."""
    b, r, c = x.shape
    br, bc = blocksize
    return x.reshape(b, r // br, br, c // bc, bc).transpose(0, 1, 3, 2, 4)


# ------------------------------------------------------------------------------- against NumPy and scipy


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32])
def test_dense_round_trip_matches_scipy(layout, dtype):
    x = random_dense((6, 8), seed=1)
    x[:2, :2] = 0  # an empty block: BSR/BSC leave it out
    t = minitorch.tensor(x, dtype=dtype)
    s = convert(t, layout)
    ref = scipy_matrix(x, layout)
    ref.sort_indices()
    comp, plain = (getattr(s, name)() for name in LAYOUTS[layout])
    assert s.layout is getattr(minitorch, f"sparse_{layout}") and s.dtype == dtype
    assert comp.dtype == minitorch.int64 and plain.dtype == minitorch.int64
    assert s.shape == (6, 8) and s.sparse_dim() == 2 and s.dense_dim() == 0
    if layout == "bsc":  # scipy's BSR of the transpose: its blocks transposed
        np.testing.assert_array_equal(npy(comp), ref.indptr)
        np.testing.assert_array_equal(npy(plain), ref.indices)
        np.testing.assert_allclose(npy(s.values()), ref.data.transpose(0, 2, 1), rtol=1e-6)
    else:
        np.testing.assert_array_equal(npy(comp), ref.indptr)
        np.testing.assert_array_equal(npy(plain), ref.indices)
        np.testing.assert_allclose(npy(s.values()), ref.data, rtol=1e-6)
    assert s._nnz() == ref.indices.shape[0]
    np.testing.assert_allclose(npy(s.to_dense()), x, rtol=1e-6)
    np.testing.assert_allclose(npy(s.to_sparse().to_dense()), x, rtol=1e-6)
    assert s.is_sparse_csr == (layout == "csr") and not s.is_sparse


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_batched_and_hybrid_against_numpy(layout):
    x = random_dense((3, 4, 6), density=1.0, seed=2)
    x[:, 0, 1] = 0  # the same pattern in every batch: PyTorch needs as many elements per batch
    x[:, :2, 4:] = 0
    s = convert(minitorch.tensor(x), layout)
    comp, plain = (getattr(s, name)() for name in LAYOUTS[layout])
    assert comp.dim() == 2 and plain.dim() == 2 and comp.shape[0] == 3
    np.testing.assert_allclose(npy(s.to_dense()), x)
    for b in range(3):  # each batch is the matrix scipy gives for its slice
        ref = scipy_matrix(x[b], layout)
        ref.sort_indices()
        np.testing.assert_array_equal(npy(comp[b]), ref.indptr)
        np.testing.assert_array_equal(npy(plain[b]), ref.indices)
    if layout == "bsr":
        blocks = batched_blocks(x, (2, 2))
        keep = np.abs(blocks).sum((3, 4)) != 0
        np.testing.assert_allclose(npy(s.values()), blocks[keep].reshape(3, -1, 2, 2))
    h = minitorch.tensor(random_dense((4, 6, 3), seed=3))  # hybrid: one dense dim
    hs = convert(h, layout, dense_dim=1)
    assert hs.dense_dim() == 1 and hs.values().shape[-1] == 3 and hs.shape == (4, 6, 3)
    np.testing.assert_allclose(npy(hs.to_dense()), npy(h))
    with pytest.raises(RuntimeError, match="^Expect the same number of specified elements per batch.$"):
        convert(minitorch.tensor([[[1.0, 0], [0, 0]], [[1, 1], [1, 1]]]), layout, blocksize=(1, 1))


@pytest.mark.parametrize("index_dtype", [minitorch.int32, minitorch.int64])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_constructors_keep_the_index_dtype(layout, index_dtype):
    x = random_dense((4, 6), seed=4)
    ref = convert(minitorch.tensor(x), layout)
    comp, plain = (getattr(ref, name)().to(index_dtype) for name in LAYOUTS[layout])
    build = getattr(minitorch, f"sparse_{layout}_tensor")
    s = build(comp, plain, ref.values(), (4, 6), check_invariants=True)
    assert s.layout is ref.layout and getattr(s, LAYOUTS[layout][0])().dtype == index_dtype
    np.testing.assert_allclose(npy(s.to_dense()), x)
    inferred = build(comp, plain, ref.values())  # the size the indices need
    assert inferred.shape[0] <= 4 and inferred.shape[1] <= 6
    general = minitorch.sparse_compressed_tensor(comp, plain, ref.values(), (4, 6), layout=ref.layout)
    np.testing.assert_allclose(npy(general.to_dense()), x)
    t = s.t()  # the same index arrays as the transposed layout
    flipped = {"csr": "csc", "csc": "csr", "bsr": "bsc", "bsc": "bsr"}[layout]
    assert t.shape == (6, 4) and t.layout is getattr(minitorch, f"sparse_{flipped}")
    assert getattr(t, LAYOUTS[flipped][0])().dtype == index_dtype
    np.testing.assert_allclose(npy(t.to_dense()), x.T)
    np.testing.assert_allclose(npy((s * 2).to_dense()), 2 * x)
    if layout in ("csr", "csc"):
        other = "csc" if layout == "csr" else "csr"
        moved = getattr(s, f"to_sparse_{other}")()
        assert getattr(moved, LAYOUTS[other][0])().dtype == index_dtype
        np.testing.assert_allclose(npy(moved.to_dense()), x)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_empty_tensors(layout):
    with pytest.raises(
        RuntimeError, match=f"^to_sparse_{layout}: Expected product of batch dimensions to be non-zero"
    ):
        convert(minitorch.zeros(0, 2, 4), layout, blocksize=(1, 1))
    for shape in [(0, 4), (4, 0), (0, 0), (2, 0, 4)]:
        blocksize = (1, 1) if layout in ("bsr", "bsc") else None
        s = convert(minitorch.zeros(shape), layout, blocksize=blocksize)
        assert s.shape == shape and s._nnz() == 0
        assert s.to_dense().shape == shape and npy(s.to_dense()).sum() == 0
    z = convert(minitorch.zeros(4, 6), layout)
    assert z._nnz() == 0 and npy(z.to_dense()).sum() == 0 and npy(getattr(z, LAYOUTS[layout][0])()).sum() == 0


def test_conversions_between_layouts():
    x = random_dense((2, 4, 6), density=1.0, seed=5)
    x[:, 1, :] = 0
    t = minitorch.tensor(x)
    csr = t.to_sparse_csr()
    for layout in ("csc", "bsr", "bsc"):
        moved = convert(csr, layout)
        assert moved.layout is getattr(minitorch, f"sparse_{layout}")
        np.testing.assert_allclose(npy(moved.to_dense()), x)
    csc = t.to_sparse_csc()
    np.testing.assert_allclose(npy(csc.to_sparse_csr().to_dense()), x)
    coo = csr.to_sparse()
    assert coo.layout is minitorch.sparse_coo and coo.sparse_dim() == 3 and coo.is_coalesced()
    np.testing.assert_allclose(npy(coo.to_dense()), x)
    m = minitorch.tensor(x[0])
    for layout in LAYOUTS:
        via_coo = convert(m.to_sparse(), layout)
        np.testing.assert_allclose(npy(via_coo.to_dense()), x[0])
        kw = {"blocksize": (2, 3)} if layout in ("bsr", "bsc") else {}
        via_kw = m.to_sparse(layout=getattr(minitorch, f"sparse_{layout}"), **kw)
        np.testing.assert_allclose(npy(via_kw.to_dense()), x[0])
    bsr = m.to_sparse_bsr((2, 2))
    expanded = bsr.to_sparse()  # every element of every stored block, explicit zeros too
    assert expanded._nnz() == bsr._nnz() * 4
    np.testing.assert_allclose(npy(expanded.to_dense()), x[0])


def test_transposes():
    x = random_dense((2, 4, 6), density=1.0, seed=6)
    x[:, 0, :] = 0
    s = minitorch.tensor(x).to_sparse_csr()
    mt = s.mT
    assert mt.layout is minitorch.sparse_csc and mt.shape == (2, 6, 4)
    np.testing.assert_allclose(npy(mt.to_dense()), x.transpose(0, 2, 1))
    b = minitorch.tensor(random_dense((2, 3, 4, 4), seed=7, density=1.0)).to_sparse_csr()
    np.testing.assert_allclose(npy(b.transpose(0, 1).to_dense()), npy(b.to_dense()).transpose(1, 0, 2, 3))
    bsr = minitorch.tensor(x[0]).to_sparse_bsr((2, 3))
    assert bsr.t().layout is minitorch.sparse_bsc and bsr.t().values().shape[1:] == (3, 2)
    np.testing.assert_allclose(npy(bsr.t().to_dense()), x[0].T)
    np.testing.assert_allclose(npy(bsr.t().t().to_dense()), x[0])
    with pytest.raises(RuntimeError, match=r"^transpose\(\): can only transpose dimensions of the same type"):
        s.transpose(0, 1)
    with pytest.raises(RuntimeError, match=r"^t\(\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        s.t()


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_products_with_dense(layout):
    x = random_dense((6, 8), seed=8)
    d = np.random.default_rng(9).standard_normal((8, 3))
    e = np.random.default_rng(10).standard_normal((5, 6))
    s = convert(minitorch.tensor(x), layout)
    D, E = minitorch.tensor(d), minitorch.tensor(e)
    np.testing.assert_allclose(npy(s @ D), x @ d, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(npy(minitorch.mm(s, D)), x @ d, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(npy(minitorch.matmul(s, D[:, 0])), x @ d[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(npy(E @ s), e @ x, rtol=1e-12, atol=1e-12)
    base = np.ones((6, 3))
    np.testing.assert_allclose(
        npy(minitorch.addmm(minitorch.tensor(base), s, D, beta=0.5, alpha=2)), 0.5 + 2 * (x @ d), rtol=1e-12
    )
    np.testing.assert_allclose(npy(sparse.mm(s, D)), x @ d, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x8 and 3x3\)"):
        s @ minitorch.ones(3, 3, dtype=minitorch.float64)
    with pytest.raises(RuntimeError, match="^Sparse CSR tensors do not have strides$"):
        convert(minitorch.ones(2, 4, 4), layout) @ minitorch.ones(4, 2)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_arithmetic_and_sum(layout):
    x = random_dense((4, 6), seed=11)
    s = convert(minitorch.tensor(x), layout)
    for out, ref in (
        (s * 2, 2 * x),
        (2 * s, 2 * x),
        (s + s, 2 * x),
        (-s, -x),
        (s / 4, x / 4),
        (s.abs(), abs(x)),
    ):
        assert out.layout is s.layout
        np.testing.assert_allclose(npy(out.to_dense()), ref, rtol=1e-12)
    np.testing.assert_allclose(npy(s + minitorch.ones(4, 6, dtype=minitorch.float64)), x + 1)
    np.testing.assert_allclose(npy(minitorch.ones(4, 6, dtype=minitorch.float64) + s), x + 1)
    np.testing.assert_allclose(s.sum().item(), x.sum(), rtol=1e-12)
    xb = random_dense((2, 4, 6), density=1.0, seed=12)
    b = convert(minitorch.tensor(xb), layout)
    np.testing.assert_allclose(npy((b + b).to_dense()), 2 * xb, rtol=1e-12)
    assert (b + b).layout is b.layout and (b + b).shape == b.shape
    np.testing.assert_allclose(b.sum().item(), xb.sum(), rtol=1e-12)


def test_csr_plus_csr_keeps_int32_indices():
    c = minitorch.sparse_csr_tensor(
        minitorch.tensor([0, 1, 2], dtype=minitorch.int32), minitorch.tensor([1, 0], dtype=minitorch.int32),
        minitorch.tensor([1.0, 2.0]),
    )  # fmt: skip
    out = c + c
    assert out.crow_indices().dtype == minitorch.int32 and out.col_indices().dtype == minitorch.int32
    np.testing.assert_array_equal(npy(out.to_dense()), [[0, 2], [4, 0]])


def test_gradients_reach_the_values():
    x = random_dense((4, 6), seed=13)
    d = minitorch.tensor(np.random.default_rng(14).standard_normal((6, 3)), requires_grad=True)
    for layout, names in LAYOUTS.items():
        s = convert(minitorch.tensor(x), layout)
        comp, plain = (getattr(s, name)() for name in names)
        v = s.values().detach().clone().requires_grad_()

        def build(v, comp=comp, plain=plain, layout=layout):
            return minitorch.sparse_compressed_tensor(
                comp, plain, v, (4, 6), layout=getattr(minitorch, f"sparse_{layout}")
            )

        assert gradcheck(lambda v: build(v).to_dense(), (v,))
        assert gradcheck(lambda v, d: build(v) @ d, (v, d))
    # no zeros: the pattern of a conversion follows the data, so a zero moved by the finite difference would
    # change the function's form (in PyTorch too)
    t = minitorch.tensor(random_dense((4, 6), density=1.0, seed=16), requires_grad=True)
    assert gradcheck(lambda t: t.to_sparse_bsr((2, 3)).to_dense() * 2, (t,))
    assert gradcheck(lambda t: t.to_sparse_csc().values().sum() * t.sum(), (t,))


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_pickle_and_load(layout, tmp_path):
    x = random_dense((2, 4, 6), density=1.0, seed=15)
    s = convert(minitorch.tensor(x), layout)
    back = pickle.loads(pickle.dumps(s))
    assert back.layout is s.layout
    np.testing.assert_allclose(npy(back.to_dense()), x)
    path = tmp_path / "s.pt"
    minitorch.save({"s": s}, path)
    np.testing.assert_allclose(npy(minitorch.load(path)["s"].to_dense()), x)


def test_dense_tensor_refuses_compressed_accessors():
    x = minitorch.ones(2, 2)
    for name, kind in (("ccol_indices", "column"), ("row_indices", "column"), ("crow_indices", "row")):
        with pytest.raises(
            RuntimeError, match=f"^{name} expected sparse {kind} compressed tensor layout but got Strided$"
        ):
            getattr(x, name)()


# ------------------------------------------------------------------------------------------ against PyTorch

_PYTORCH_BUILDS = r"""
def cases(torch):
    import warnings
    warnings.simplefilter("ignore")
    T = torch.tensor
    names = {"sparse_csr": ("crow_indices", "col_indices"), "sparse_csc": ("ccol_indices", "row_indices"),
             "sparse_bsr": ("crow_indices", "col_indices"), "sparse_bsc": ("ccol_indices", "row_indices")}

    def desc(s):
        lay = str(s.layout).split(".")[-1]
        if lay == "sparse_coo":
            return [lay, list(s.shape), s._nnz(), s.is_coalesced(), s._indices().tolist(), s._values().tolist()]
        if lay not in names:
            return [lay, list(s.shape), s.tolist()]
        c, p = (getattr(s, n)() for n in names[lay])
        return [lay, list(s.shape), s._nnz(), str(s.dtype), str(c.dtype), c.tolist(), p.tolist(), s.values().tolist(),
                s.to_dense().tolist(), s.dense_dim(), s.sparse_dim(), s.is_sparse_csr, repr(s)]

    i32 = torch.int32
    x = torch.arange(24.).reshape(2, 3, 4)
    x[x % 3 == 0] = 0
    d = torch.arange(16.).reshape(4, 4)
    d[1] = 0
    builds = [
        lambda: torch.sparse_csr_tensor(T([0, 1, 3]), T([1, 0, 2]), T([2., 3, 4])),
        lambda: torch.sparse_csr_tensor(T([0, 1, 3], dtype=i32), T([1, 0, 2], dtype=i32), T([2., 3, 4]), (2, 5)),
        lambda: torch.sparse_csr_tensor([0, 2, 2], [0, 1], [1, 2]),
        lambda: torch.sparse_csr_tensor(T([[0, 1, 3], [0, 2, 3]]), T([[1, 0, 2], [0, 1, 0]]), T([[1., 2, 3], [4, 5, 6]]), (2, 2, 3)),
        lambda: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 2]), torch.ones(2, 5, dtype=torch.float64)),
        lambda: torch.sparse_csc_tensor(T([0, 1, 2]), T([0, 2]), T([1., 2])),
        lambda: torch.sparse_bsr_tensor(T([0, 1, 2]), T([0, 2]), torch.arange(12.).reshape(2, 2, 3)),
        lambda: torch.sparse_bsc_tensor(T([0, 1, 2]), T([0, 2]), torch.arange(12.).reshape(2, 2, 3)),
        lambda: torch.sparse_compressed_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (2, 2), layout=torch.sparse_csc),
        lambda: torch.sparse_csr_tensor(T([0]), T([], dtype=torch.int64), T([])),
        lambda: torch.sparse_csr_tensor(T([0, 0, 0]), T([], dtype=torch.int64), T([]), (2, 0)),
        lambda: torch.sparse_csr_tensor(T([0, 1]), T([0]), T([1]), dtype=torch.float64, requires_grad=True),
        lambda: x.to_sparse_csr(),
        lambda: x.to_sparse_csc(),
        lambda: x.to_sparse_csr(dense_dim=1),
        lambda: x.to_sparse_bsr((1, 2)),
        lambda: x.to_sparse_bsc((3, 2)),
        lambda: torch.ones(2, 2, 3, 4).to_sparse_csr(),
        lambda: torch.ones(4, 4, 2).to_sparse_bsr((2, 2), dense_dim=1),
        lambda: d.to_sparse_bsr([2, 2]),
        lambda: d.to_sparse_bsr(1),
        lambda: d.to_sparse(layout=torch.sparse_bsc, blocksize=(2, 2)),
        lambda: d.to_sparse(layout=torch.sparse_csc),
        lambda: torch.zeros(0, 3).to_sparse_csr(),
        lambda: torch.tensor([[1, 0], [0, 2]], dtype=torch.int32).to_sparse_csr(),
        lambda: (d > 4).to_sparse_csc(),
        lambda: d.to_sparse_csr().to_sparse_csc(),
        lambda: d.to_sparse_csc().to_sparse_csr(),
        lambda: d.to_sparse_csr().to_sparse_bsr((2, 2)),
        lambda: d.to_sparse_bsr((2, 2)).to_sparse_bsc((2, 2)),
        lambda: d.to_sparse().to_sparse_csc(),
        lambda: d.to_sparse().to_sparse_bsr((2, 1)),
        lambda: x.to_sparse(2).to_sparse_csr(),
        lambda: d.to_sparse_csc().to_sparse(),
        lambda: x.to_sparse_csr().to_sparse(),
        lambda: d.to_sparse_bsr((2, 2)).to_sparse(),
        lambda: d.to_sparse_csr().t(),
        lambda: d.to_sparse_bsr((2, 1)).t(),
        lambda: x.to_sparse_csr().mT,
        lambda: d.to_sparse_csr() * 2,
        lambda: d.to_sparse_csc() @ torch.ones(4, 2),
        lambda: torch.ones(2, 4) @ d.to_sparse_csr(),
        lambda: d.to_sparse_bsr((2, 2)) @ torch.ones(4, 2),
        lambda: torch.addmm(torch.ones(4, 2), d.to_sparse_csc(), torch.ones(4, 2)),
        lambda: (d.to_sparse_csr() @ d.to_sparse_csr()).to_dense(),
        lambda: (d.to_sparse_csc() @ d.to_sparse_csc()).to_dense(),  # PyTorch's columns come unsorted
        lambda: x.to_sparse_csc().sum(),
        lambda: d.to_sparse_csr().sum(1, keepdim=True),
        lambda: d.to_sparse_csr().sum((0, 1), keepdim=True),
        lambda: d.int().to_sparse_csr().sum(0, keepdim=True),
        lambda: d.to_sparse_csr().sum(-1, keepdim=True, dtype=torch.float64),
        lambda: d.to_sparse_csr() + torch.ones(4, 4),
        lambda: x.to_sparse_csr()[1],
        lambda: x.to_sparse_csc().select(0, -2),
        lambda: x.to_sparse_bsr((1, 2)).unbind(0)[1],
        lambda: x.to_sparse_csr()[0][1],
        lambda: d.to_sparse_csr().select(1, 2),
    ]
    out = []
    for f in builds:
        try:
            r = f()
            out.append(desc(r) if r.layout != torch.strided else ["strided", list(r.shape), r.tolist()])
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out
"""


def test_construction_conversion_and_ops_are_pytorchs():
    """values, dtypes, shapes, nnz, index dtypes and the repr of each construction, conversion and op result"""
    ours, theirs = cases_here_and_in_pytorch(_PYTORCH_BUILDS, [("torch", minitorch)])
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"case {i}:\n ours   {a}\n theirs {b}"


_PYTORCH_ERRORS = r"""
def cases(torch):
    import warnings
    warnings.simplefilter("ignore")
    T = torch.tensor
    i32 = torch.int32
    d = torch.arange(16.).reshape(4, 4)
    calls = [
        lambda k: torch.sparse_csr_tensor(T([1, 1, 2]), T([0, 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 3]), T([0, 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 2, 1, 2]), T([0, 1]), T([1., 2]), (3, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 5]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, -1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 2]), T([1, 0]), T([1., 2]), (1, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 2]), T([1, 1]), T([1., 2]), (1, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2, 2]), T([0, 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 1, 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 1], dtype=i32), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0., 1, 2]), T([0., 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2], dtype=torch.int16), T([0, 1], dtype=torch.int16), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (1, 2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (2,), **k),
        lambda k: torch.sparse_csr_tensor(T([[0, 1, 2]]), T([[0, 1], [0, 1]]), T([[1., 2]]), (1, 2, 2), **k),
        lambda k: torch.sparse_csr_tensor(T([[0, 1, 2]]), T([0, 1]), T([1., 2]), **k),
        lambda k: torch.sparse_csr_tensor(T(0), T(0), T(1.), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), T([0]), T(1.), **k),
        lambda k: torch.sparse_csr_tensor(T([[0, 1, 2], [0, 0, 1]]), T([[0, 1], [0, 1]]), T([[1., 2], [3, 4]]), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), T([False]), T([1.]), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), T([0.5]), T([1.]), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), T([0]), T([1]), requires_grad=True, **k),
        lambda k: torch.sparse_csr_tensor(T([]), T([]), T([]), **k),
        lambda k: torch.sparse_bsr_tensor(T([0, 1]), T([0]), torch.ones(1), (2, 2), **k),
        lambda k: torch.sparse_bsr_tensor(T([0, 1]), T([0]), torch.ones(1, 2, 2), (3, 2), **k),
        lambda k: torch.sparse_bsr_tensor(T([0, 1]), T([0]), torch.ones(1, 2, 2), (4, 2), **k),
        lambda k: torch.sparse_bsr_tensor(T([0, 1]), T([1]), torch.ones(1, 2, 2), (2, 2), **k),
        lambda k: torch.sparse_bsc_tensor(T([0, 2]), T([1, 0]), torch.ones(2, 1, 1), (2, 1), **k),
        lambda k: torch.sparse_bsc_tensor(T([0, 1]), T([0]), torch.ones(1, 1, 1), (2, 2), **k),
        lambda k: torch.sparse_csc_tensor(T([0, 1, 2]), T([0, 3]), T([1., 2]), (3, 2), **k),
        lambda k: torch.sparse_csc_tensor(T([0, 2]), T([1, 0]), T([1., 2]), (2, 1), **k),
        lambda k: torch.sparse_csc_tensor(T([0, 3, 1]), T([0]), T([1.]), (2, 2), **k),
        lambda k: torch.sparse_csc_tensor(T([0, 1]), T([0]), T([1.]), (2, 2), **k),
        lambda k: torch.sparse_compressed_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (2, 2), **k),
        lambda k: torch.sparse_compressed_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (2, 2), layout=torch.strided, **k),
        lambda k: torch.sparse_compressed_tensor(T([0, 1, 2]), T([0, 1]), T([1., 2]), (2, 2), layout=torch.sparse_coo, **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1], dtype=i32), T([0], dtype=i32), T([1.]), (1, 2 ** 31), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), T([0]), T([1.]), layout=torch.sparse_csc, **k),
        lambda k: torch.sparse_bsc_tensor(T([0, 1]), T([0]), torch.ones(1, 1, 1), layout=torch.strided, **k),
        lambda k: torch.sparse_csc_tensor(T([0, 1]), T([0]), T([1.]), layout=torch.sparse_csc, **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), 0, T([1.]), T([1, 1]), **k),
        lambda k: torch.sparse_csr_tensor(T([0, 1]), None, T([1.]), **k),
        lambda k: torch.sparse_compressed_tensor(T([0, 1]), T([0]), "circular", **k),
    ]
    conversions = [
        lambda: torch.ones(3).to_sparse_csr(),
        lambda: torch.tensor(1.).to_sparse_csr(),
        lambda: torch.ones(2, 3, 4).to_sparse_csr(dense_dim=2),
        lambda: torch.ones(2, 3, 4).to_sparse_csr(dense_dim=-1),
        lambda: torch.ones(3).to_sparse_csc(),
        lambda: torch.ones(3).to_sparse_bsr((1, 1)),
        lambda: torch.tensor(1.).to_sparse_bsc((1, 1)),
        lambda: d.to_sparse_bsr((2, 2), dense_dim=1),
        lambda: d.to_sparse_bsr(3),
        lambda: d.to_sparse_bsr((2,)),
        lambda: d.to_sparse_bsr((0, 2)),
        lambda: d.to_sparse_bsr(None),
        lambda: d.to_sparse_bsr(torch.tensor([2, 2])),
        lambda: d.to_sparse_bsr((2.0, 2)),
        lambda: d.to_sparse_bsr(torch.tensor(2)),
        lambda: d.to_sparse_bsr([torch.tensor([2]), 2]),
        lambda: d.to_sparse_csr(0.5),
        lambda: d.to_dense(4),
        lambda: d.to_sparse(torch.tensor([1, 1])),
        lambda: d.to_sparse(1.5),
        lambda: d.to_sparse(torch.tensor(1)),
        lambda: d.to_sparse(layout=torch.sparse_bsr, blocksize=2),
        lambda: torch.sparse_csc_tensor(T([-3, 0]), T([9223372036854775807, 1]), T([3, 3])),
        lambda: torch.empty(0, 2, 3).to_sparse_csc(),
        lambda: d.to_sparse(layout=torch.sparse_csr, blocksize=(2, 2)),
        lambda: d.to_sparse(layout=torch.sparse_bsr),
        lambda: d.to_sparse(2, layout=torch.sparse_csr),
        lambda: torch.tensor([[[1., 0], [0, 0]], [[1, 1], [0, 0]]]).to_sparse_csr(),
        lambda: d.to_sparse_bsr((2, 2)).to_sparse_csr(),
        lambda: d.to_sparse_bsr((2, 2)).to_sparse_csc(),
        lambda: d.to_sparse_bsr((2, 2)).to_sparse_bsr((1, 1)),
        lambda: d.to_sparse_csr().to_sparse(1),
        lambda: d.to_sparse_csr().to_sparse_csr(dense_dim=1),
        lambda: d.to_sparse_csr().to_sparse_csc(dense_dim=1),
        lambda: d.to_sparse_csr().to_sparse(layout=torch.sparse_csr, blocksize=(2, 2)),
        lambda: d.to_sparse_csr().to_sparse(layout=torch.sparse_bsr),
        lambda: d.to_sparse_csr().to_sparse_bsr((3, 3)),
        lambda: d.to_sparse().to_sparse_bsr(3),
        lambda: torch.ones(2, 2, 2).to_sparse().to_sparse_csc(),
        lambda: torch.ones(2, 2, 2).to_sparse().to_sparse_csr(),
        lambda: d.to_sparse_csc().crow_indices(),
        lambda: d.to_sparse_csr().ccol_indices(),
        lambda: d.to_sparse_csr().row_indices(),
        lambda: d.to_sparse_csc().indices(),
        lambda: d.to_sparse_bsr((2, 2)).coalesce(),
        lambda: d.to_sparse_csc().is_coalesced(),
        lambda: torch.ones(2, 2, 3).to_sparse_csr().t(),
        lambda: torch.ones(2, 2, 3).to_sparse_csr().transpose(0, 1),
        lambda: torch.ones(2, 2, 3, 3).to_sparse_csr(dense_dim=1).transpose(2, 3),
        lambda: d.ccol_indices(),
        lambda: d.row_indices(),
        lambda: torch.ones(2, 2, 3).to_sparse_csr() @ torch.ones(3, 2),
        lambda: d.to_sparse_csr() @ torch.ones(3, 2),
        lambda: d.to_sparse_csr().sum(0),
        lambda: d.to_sparse_csc().sum(0, keepdim=True),
        lambda: d.to_sparse_bsr((2, 2)).sum(1, keepdim=True),
    ]
    out = []
    for k in ({}, {"check_invariants": True}):
        for f in calls:
            try:
                out.append(["ok", list(f(k).shape)])
            except Exception as e:
                out.append([type(e).__name__, str(e)])
    with torch.sparse.check_sparse_tensor_invariants():
        for f in calls[:8]:
            try:
                out.append(["ok", list(f({}).shape)])
            except Exception as e:
                out.append([type(e).__name__, str(e)])
    for f in conversions:
        try:
            out.append(["ok", list(f().shape)])
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out
"""


def test_invariant_errors_and_refusals_are_pytorchs():
    """every bad input: accepted without check_invariants as PyTorch accepts it, refused with it in PyTorch's
    exception type and words; the conversions' refusals likewise"""
    ours, theirs = cases_here_and_in_pytorch(_PYTORCH_ERRORS, [("torch", minitorch)])
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"case {i}:\n ours   {a}\n theirs {b}"
