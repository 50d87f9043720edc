"""repr/str of tensors against PyTorch's exact output for the common cases."""

import pytest

import minitorch as P


@pytest.fixture(autouse=True)
def _default_options():
    yield
    P.set_printoptions(profile="default")


CASES = [
    (lambda: P.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    (lambda: P.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: P.tensor(3.0), "tensor(3.)"),
    (lambda: P.tensor(3), "tensor(3)"),
    (lambda: P.tensor(-0.5), "tensor(-0.5000)"),
    (lambda: P.tensor([True, False]), "tensor([ True, False])"),
    (lambda: P.tensor(True), "tensor(True)"),
    (lambda: P.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: P.tensor([]), "tensor([])"),
    (lambda: P.zeros(0, dtype=P.int64), "tensor([], dtype=torch.int64)"),
    (lambda: P.zeros(2, 0, dtype=P.float64), "tensor([], size=(2, 0), dtype=torch.float64)"),
    (lambda: P.tensor([1.5, 2.0], dtype=P.float64), "tensor([1.5000, 2.0000], dtype=torch.float64)"),
    (lambda: P.tensor([1.0, 2.0], dtype=P.float16), "tensor([1., 2.], dtype=torch.float16)"),
    (lambda: P.tensor([0.5], dtype=P.bfloat16), "tensor([0.5000], dtype=torch.bfloat16)"),
    (lambda: P.tensor([1, 2], dtype=P.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: P.tensor([1, 200], dtype=P.uint8), "tensor([  1, 200], dtype=torch.uint8)"),
    (lambda: P.ones(2, requires_grad=True), "tensor([1., 1.], requires_grad=True)"),
    (lambda: P.tensor([1e-5, 1e5]), "tensor([1.0000e-05, 1.0000e+05])"),
    (lambda: P.tensor([1.0, 1e9]), "tensor([1.0000e+00, 1.0000e+09])"),
    (lambda: P.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: P.tensor([-1.0, 2.0]), "tensor([-1.,  2.])"),
    (lambda: P.tensor([100.0, -2.0]), "tensor([100.,  -2.])"),
    (
        lambda: P.tensor([float("nan"), float("inf"), -1.5, 0.0]),
        "tensor([    nan,     inf, -1.5000,  0.0000])",
    ),
    (lambda: P.tensor([float("nan"), 1.0]), "tensor([nan, 1.])"),
    (lambda: P.tensor([0.0, 0.0]), "tensor([0., 0.])"),
    (
        lambda: P.tensor([[1.0, 2.5], [-3.0, 4.0]]),
        "tensor([[ 1.0000,  2.5000],\n        [-3.0000,  4.0000]])",
    ),
    (lambda: P.arange(6).view(2, 3), "tensor([[0, 1, 2],\n        [3, 4, 5]])"),
    (
        lambda: P.arange(8).view(2, 2, 2),
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])",
    ),
    (
        lambda: P.arange(2000.0),
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])",
    ),
    (lambda: P.arange(1001), "tensor([   0,    1,    2,  ...,  998,  999, 1000])"),
    (
        lambda: P.arange(2000).view(2, 1000),
        "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n        [1000, 1001, 1002,  ..., 1997, 1998, 1999]])",
    ),
    (
        lambda: P.arange(1100).view(1100, 1),
        (
            "tensor([[   0],\n        [   1],\n        [   2],\n        ...,\n        [1097],\n        [1098],\n"
            "        [1099]])"
        ),
    ),
    (
        lambda: P.arange(30),
        (
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])"
        ),
    ),
    (lambda: P.arange(4.0).view(2, 2).t(), "tensor([[0., 2.],\n        [1., 3.]])"),
]


@pytest.mark.parametrize("make, expected", CASES)
def test_repr(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_precision_and_sci_mode():
    P.set_printoptions(precision=2)
    assert repr(P.tensor([1.2345, 2.0])) == "tensor([1.23, 2.00])"
    P.set_printoptions(profile="default")
    assert repr(P.tensor([1.2345, 2.0])) == "tensor([1.2345, 2.0000])"
    P.set_printoptions(sci_mode=True)
    assert repr(P.tensor([1.5, 2.0])) == "tensor([1.5000e+00, 2.0000e+00])"
    P.set_printoptions(sci_mode=False)
    # PyTorch measures the width in the forced mode: the padding matches the longest fixed-point number
    assert repr(P.tensor([1e-5, 1e5])) == "tensor([     0.0000, 100000.0000])"
    P.set_printoptions(profile="default", threshold=5, edgeitems=2)
    assert repr(P.arange(10)) == "tensor([0, 1,  ..., 8, 9])"
    P.set_printoptions(profile="default", linewidth=20)
    assert repr(P.arange(8)) == "tensor([0, 1, 2, 3,\n        4, 5, 6, 7])"


def test_long_suffix_wraps():
    t = P.tensor([1.25] * 12, dtype=P.float64, requires_grad=True)
    assert repr(t) == (
        "tensor([1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500,\n"
        "        1.2500, 1.2500, 1.2500], dtype=torch.float64, requires_grad=True)"
    )
    t = P.tensor([1.25] * 9, dtype=P.float64)
    assert repr(t) == (
        "tensor([1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500],\n"
        "       dtype=torch.float64)"
    )


def test_format_and_default_dtype():
    assert f"{P.tensor(2.5):.1f}" == "2.5"
    P.set_default_dtype(P.float64)
    try:
        assert repr(P.tensor([1.5])) == "tensor([1.5000])"
        assert repr(P.tensor([1.5], dtype=P.float32)) == "tensor([1.5000], dtype=torch.float32)"
    finally:
        P.set_default_dtype(P.float32)


@pytest.mark.skipif(not P.cuda.is_available(), reason="needs a GPU")
def test_cuda_suffix():
    assert repr(P.tensor([1.0, 2.0], device="cuda")) == "tensor([1., 2.], device='cuda:0')"
