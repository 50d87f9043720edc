"""The views and indexed writes whose forward-mode and batching rules csrc/ops/ops.schema declares (t, unsqueeze,
squeeze, flatten, reshape, permute, view, view_as, reshape_as, expand, expand_as, repeat, masked_select, scatter,
scatter_add, index_copy, index_fill, slice_scatter, index_put, their in-place forms): each JVP against central
finite differences and PyTorch's torch.func.jvp, each vmap against a loop over the batch, on contiguous and strided
inputs, with no generic-JVP or per-entry fallback warning (each op is served by its declared rule)."""

import pytest

import minitorch as torch
from minitorch.func import vmap
from minitorch.testing import assert_close
from tests.func import schema_rule_checks as checks

D = torch.float64

# one source for both sides: ops of a (3, 4) float64 input (fixed index tensors, no duplicate writes)
SOURCE = r"""
def fns(torch):
    i2 = torch.tensor([[2, 0], [1, 3], [0, 1]])
    rows = torch.tensor([2, 0])
    cols = torch.tensor([0, 2])
    mask = torch.tensor([[True, False, True, False]] * 3)
    shape = torch.zeros(2, 6, dtype=torch.float64)
    return {
        "t": lambda a: a.t(),
        "t_": lambda a: (a * 1).t_(),
        "unsqueeze": lambda a: torch.unsqueeze(a, 1),
        "unsqueeze_": lambda a: (a * 1).unsqueeze_(-1),
        "squeeze": lambda a: a.unsqueeze(1).squeeze(),
        "squeeze_dim": lambda a: torch.squeeze(a.unsqueeze(0), 0),
        "squeeze_": lambda a: (a * 1).unsqueeze(2).squeeze_(2),
        "flatten": lambda a: a.flatten(),
        "flatten_dims": lambda a: torch.flatten(a.unsqueeze(0), 1, 2),
        "reshape": lambda a: torch.reshape(a, (4, 3)),
        "reshape_method": lambda a: a.reshape(2, -1),
        "permute": lambda a: torch.permute(a.unsqueeze(1), (2, 0, 1)),
        "permute_method": lambda a: a.permute(1, 0),
        "view": lambda a: a.contiguous().view(2, 6),
        "view_as": lambda a: a.contiguous().view_as(shape),
        "reshape_as": lambda a: a.reshape_as(shape),
        "expand": lambda a: a[:1].expand(5, 4),
        "expand_as": lambda a: a[:, :1].expand_as(a),
        "repeat": lambda a: a.repeat(2, 1, 3),
        "masked_select": lambda a: torch.masked_select(a, mask),
        "scatter": lambda a: a.scatter(1, i2, a.sin()),
        "scatter_value": lambda a: a.scatter(1, i2, 2.5),
        "scatter_": lambda a: (a * 1).scatter_(1, i2, a.exp()),
        "scatter_add": lambda a: torch.scatter_add(a, 1, i2, a.cos()),
        "scatter_add_": lambda a: (a * 1).scatter_add_(1, i2, a * a),
        "index_copy": lambda a: a.index_copy(0, rows, a[:2] * 3),
        "index_copy_": lambda a: (a * 1).index_copy_(0, rows, a[1:] ** 2),
        "index_fill": lambda a: a.index_fill(1, cols, 1.5),
        "index_fill_tensor": lambda a: a.index_fill(1, cols, a.sum()),
        "index_fill_": lambda a: (a * 1).index_fill_(1, cols, -2.0),
        "slice_scatter": lambda a: torch.slice_scatter(a, a[:, 2:].exp(), 1, 1, 3),
        "slice_scatter_step": lambda a: a.slice_scatter(a[::2] * 2, 0, 0, None, 2),
        "index_put": lambda a: a.index_put((rows,), a[:2].sin()),
        "index_put_acc": lambda a: a.index_put((rows, cols), a[0, :2] * 4, True),
        "index_put_": lambda a: (a * 1).index_put_((rows,), a[1:] * a[1:]),
    }

"""

SOURCE += checks.JVP_CASES
_NS, FNS = checks.load(SOURCE)


@pytest.mark.parametrize("layout", ["strided", "contiguous"])
@pytest.mark.parametrize("name", list(FNS))
def test_jvp_matches_finite_differences(name, layout):
    checks.check_jvp_against_finite_differences(FNS[name], layout)


def test_jvp_matches_pytorch():
    checks.check_jvp_against_pytorch(SOURCE, _NS)


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", list(FNS))
def test_vmap_matches_a_loop(name, strided):
    # index_fill's _dims_rule runs a batched fill value (a.sum() here) per entry: its fallback warning is allowed
    checks.check_vmap_against_a_loop(FNS[name], strided, fallback_ok=name == "index_fill_tensor")


def test_in_place_views_under_vmap_write_the_batched_value():
    # t_/unsqueeze_/squeeze_ change the batched value's geometry in place and return the same object
    x = torch.randn(5, 3, 4, dtype=D)

    def f(a):
        b = a * 1
        assert b.t_() is b and b.unsqueeze_(0) is b and b.squeeze_(0) is b
        return b

    assert_close(vmap(f)(x), x.transpose(1, 2))
    with pytest.raises(RuntimeError, match=r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        vmap(lambda a: a.t())(torch.randn(2, 3, 4, 5))


def test_hvp_through_the_linear_writes_matches_finite_differences():
    # the rows' `dual_term: linear` (no second-order term) against the gradient's finite differences
    i2 = torch.tensor([[2, 0], [1, 3], [0, 1]])
    rows = torch.tensor([2, 0])

    def loss(a):
        out = a.scatter_add(1, i2, a[:, :2].sin()).index_copy(
            0, rows, a[:2].exp()
        )  # src of index's shape (backward)
        out = out.index_fill(1, rows, a.sum()).slice_scatter(a[:, 2:] ** 2, 1, 1, 3)
        out = out.index_put((rows,), a[1:].cos(), True)
        return (out.masked_select(out > 0) ** 3).sum() + (out.t().reshape(-1) ** 2).sum()

    checks.check_hvp_against_finite_differences(loss)
