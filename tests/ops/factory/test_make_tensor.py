"""torch.testing.make_tensor: PyTorch's default ranges per dtype, its options and its argument errors."""

import pytest

import minitorch as torch
from minitorch.testing import make_tensor

RANGES = [
    (torch.bool, 0, 1),
    (torch.uint8, 0, 9),
    (torch.int8, -9, 9),
    (torch.int16, -9, 9),
    (torch.int32, -9, 9),
    (torch.int64, -9, 9),
    (torch.float16, -9, 9),
    (torch.bfloat16, -9, 9),
    (torch.float32, -9, 9),
    (torch.float64, -9, 9),
    (torch.complex64, -9, 9),
    (torch.complex128, -9, 9),
]


@pytest.mark.parametrize("dtype, lo, hi", RANGES)
def test_default_ranges(dtype, lo, hi):
    torch.manual_seed(0)
    t = make_tensor(4000, dtype=dtype, device="cpu")
    assert t.dtype == dtype and t.shape == (4000,) and t.device.type == "cpu" and not t.requires_grad
    r = (torch.view_as_real(t) if dtype.is_complex else t).double()
    assert lo <= r.min().item() and r.max().item() <= hi
    if dtype.is_floating_point or dtype.is_complex:
        assert r.max().item() < 9 or dtype in (torch.float16, torch.bfloat16)
        assert r.min().item() < -8 and r.max().item() > 8
    else:
        # every integer of the range turns up in 4000 draws
        assert set(r.long().tolist()) == set(range(lo, hi + 1))


def test_shapes_and_options():
    assert make_tensor(2, 3, dtype=torch.float32, device="cpu").shape == (2, 3)
    assert make_tensor((2, 3), dtype=torch.float32, device="cpu").shape == (2, 3)
    assert make_tensor([], dtype=torch.float32, device="cpu").shape == ()
    assert make_tensor(0, 3, dtype=torch.int64, device="cpu").shape == (0, 3)
    t = make_tensor(3, 4, dtype=torch.float64, device="cpu", noncontiguous=True, requires_grad=True)
    assert t.shape == (3, 4) and not t.is_contiguous() and t.requires_grad and t.is_leaf
    # one element: noncontiguous is ignored
    assert make_tensor(1, dtype=torch.float32, device="cpu", noncontiguous=True).is_contiguous()
    t = make_tensor(2, 3, 4, 5, dtype=torch.float32, device="cpu", memory_format=torch.channels_last)
    assert t.is_contiguous(memory_format=torch.channels_last)
    t = make_tensor(50, dtype=torch.float32, device="cpu", low=2, high=3)
    assert 2 <= t.min().item() and t.max().item() < 3
    assert (
        make_tensor(20, dtype=torch.int32, device="cpu", low=0, high=1, exclude_zero=True).tolist()
        == [1] * 20
    )
    z = make_tensor(20, dtype=torch.float32, device="cpu", low=0, high=1e-45, exclude_zero=True)
    assert (z != 0).all()
    # a range wider than the dtype is clamped to its finite values
    big = make_tensor(100, dtype=torch.float64, device="cpu", low=-1e400, high=1e400)
    assert torch.isfinite(big).all() and big.abs().max().item() > 1e300


@pytest.mark.parametrize(
    "kw, exc, msg",
    [
        ({"dtype": torch.int64, "requires_grad": True}, ValueError, "`requires_grad=True` is not supported"),
        (
            {"dtype": torch.float32, "low": 3, "high": 1},
            ValueError,
            "`low` must be less than `high`, but got 3 >= 1",
        ),
        ({"dtype": torch.float32, "low": float("nan")}, ValueError, "`low` and `high` cannot be NaN"),
        ({"dtype": torch.uint8, "low": -5, "high": -1}, ValueError, r"only supports \[0, 256\)"),
        (
            {"dtype": torch.float32, "noncontiguous": True, "memory_format": torch.channels_last},
            ValueError,
            "mutually exclusive",
        ),
    ],
)
def test_bad_arguments(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        make_tensor(2, 2, 2, 2, device="cpu", **kw)


def test_low_equals_high_warns():
    with pytest.warns(FutureWarning, match="low==high"):
        t = make_tensor(3, dtype=torch.float32, device="cpu", low=1, high=1)
    assert t.tolist() == [1.0, 1.0, 1.0]
