"""minitorch.Generator: its own Philox stream for generator= on the random ops, state save/restore, the
device check, and DataLoader / random_split / RandomSampler taking it as PyTorch's code passes it."""

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import DataLoader, RandomSampler, TensorDataset, random_split


def test_seeded_generators_repeat_and_leave_the_global_stream_alone():
    a = minitorch.randn(5, generator=minitorch.Generator().manual_seed(7))
    b = minitorch.randn(5, generator=minitorch.Generator().manual_seed(7))
    c = minitorch.randn(5, generator=minitorch.Generator().manual_seed(8))
    assert minitorch.equal(a, b) and not minitorch.equal(a, c)
    minitorch.manual_seed(0)
    ref = minitorch.rand(4)
    minitorch.manual_seed(0)
    g = minitorch.Generator().manual_seed(1)
    minitorch.rand(100, generator=g)
    minitorch.randint(0, 5, (10,), generator=g)
    minitorch.randperm(10, generator=g)
    minitorch.empty(3).normal_(generator=g).uniform_(generator=g).bernoulli_(0.5, generator=g)
    minitorch.empty(3, dtype=minitorch.int64).random_(0, 9, generator=g)
    assert minitorch.equal(minitorch.rand(4), ref)


def test_every_random_op_follows_the_generator():
    def draws(g):
        return [
            minitorch.rand(3, generator=g),
            minitorch.randn(3, generator=g),
            minitorch.randint(0, 100, (3,), generator=g),
            minitorch.randperm(8, generator=g),
            minitorch.empty(3).uniform_(-1, 1, generator=g),
            minitorch.empty(3).normal_(2.0, 0.5, generator=g),
            minitorch.empty(3).bernoulli_(0.3, generator=g),
            minitorch.empty(3, dtype=minitorch.int64).random_(0, 50, generator=g),
        ]

    for x, y in zip(draws(minitorch.Generator().manual_seed(3)), draws(minitorch.Generator().manual_seed(3))):
        assert minitorch.equal(x, y)
    u = minitorch.rand(20000, generator=minitorch.Generator().manual_seed(4)).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01


def test_get_state_set_state_and_seeds():
    g = minitorch.Generator().manual_seed(11)
    assert g.initial_seed() == 11 and g.device == minitorch.device("cpu")
    state = g.get_state()
    assert state.dtype == minitorch.uint8 and state.shape == (16,)
    first = minitorch.randn(4, generator=g)
    g.set_state(state)
    assert minitorch.equal(minitorch.randn(4, generator=g), first)
    s = g.seed()
    assert g.initial_seed() == s
    with pytest.raises(RuntimeError, match="of size 16 but found the input RNG state size to be 3"):
        g.set_state(minitorch.zeros(3, dtype=minitorch.uint8))


def test_bad_generators_raise():
    # PyTorch's randn has two overloads (its message the invalid combination); our one row words its argument
    with pytest.raises(TypeError, match="randn\\(\\): argument 'generator' must be torch.Generator, not int"):
        minitorch.randn(2, generator=3)
    with pytest.raises(TypeError, match="randint\\(\\) received an invalid combination of arguments"):
        minitorch.randint(5, (2,), generator=3)
    if minitorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
            minitorch.randn(2, device="cuda", generator=minitorch.Generator())


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
def test_cuda_generator_draws_on_the_device():
    g = minitorch.Generator(device="cuda").manual_seed(5)
    a = minitorch.randn(8, device="cuda", generator=g)
    b = minitorch.randn(8, device="cuda", generator=minitorch.Generator(device="cuda").manual_seed(5))
    assert a.is_cuda and minitorch.equal(a.cpu(), b.cpu())


def test_data_utilities_take_a_minitorch_generator():
    ds = TensorDataset(minitorch.arange(20.0))

    def order(seed):
        loader = DataLoader(ds, batch_size=5, shuffle=True, generator=minitorch.Generator().manual_seed(seed))
        return np.concatenate([b[0].numpy() for b in loader]).tolist()

    assert order(1) == order(1) and order(1) != order(2) and sorted(order(1)) == list(range(20))
    s1 = list(RandomSampler(ds, generator=minitorch.Generator().manual_seed(5)))
    s2 = list(RandomSampler(ds, generator=minitorch.Generator().manual_seed(5)))
    assert s1 == s2 and sorted(s1) == list(range(20))
    a = random_split(ds, [0.5, 0.5], generator=minitorch.Generator().manual_seed(9))
    b = random_split(ds, [10, 10], generator=minitorch.Generator().manual_seed(9))
    assert a[0].indices == b[0].indices


def test_nn_init_takes_a_generator():
    from minitorch import nn

    for init in (
        nn.init.uniform_,
        nn.init.normal_,
        nn.init.trunc_normal_,
        nn.init.xavier_uniform_,
        nn.init.xavier_normal_,
        nn.init.kaiming_uniform_,
        nn.init.kaiming_normal_,
        nn.init.orthogonal_,
    ):
        a = init(minitorch.empty(6, 5), generator=minitorch.Generator().manual_seed(2))
        b = init(minitorch.empty(6, 5), generator=minitorch.Generator().manual_seed(2))
        c = init(minitorch.empty(6, 5), generator=minitorch.Generator().manual_seed(3))
        assert minitorch.equal(a, b) and not minitorch.equal(a, c), init.__name__


# random_() without bounds draws every integer the dtype holds exactly, as PyTorch: [0, 2^digits] for floating
# dtypes, [0, max] for integers (int64's max left out), {0, 1} for bool
RANDOM_TOP = {
    "float16": 2**11,
    "bfloat16": 2**8,
    "float32": 2**24,
    "float64": 2**53,
    "int8": 127,
    "uint8": 255,
    "int16": 2**15 - 1,
    "int32": 2**31 - 1,
    "int64": 2**63 - 2,
    "bool": 1,
}


@pytest.mark.parametrize("dtype", list(RANDOM_TOP))
def test_random_without_bounds_spans_the_dtype(dtype):
    top = RANDOM_TOP[dtype]
    g = minitorch.Generator().manual_seed(3)
    t = minitorch.zeros(100_000, dtype=getattr(minitorch, dtype)).random_(generator=g)
    v = t.double().numpy()
    assert v.min() >= 0 and v.max() <= top
    if top <= 2**16:  # every value is drawn often enough to see the top
        assert v.max() == top and v.min() == 0
        assert len(np.unique(v)) == top + 1 or top > 2**11
    else:
        assert v.max() > 0.99 * top


def test_random_bounds_forms():
    t = minitorch.zeros(2000)
    for draw in (
        lambda: t.random_(5),
        lambda: t.random_(to=5),
        lambda: t.random_(0, 5),
        lambda: t.random_(2, 7),
    ):
        v = draw().numpy()
        assert v.min() >= 0 and v.max() <= 6 and len(np.unique(v)) == 5
    with pytest.raises(NotImplementedError):
        minitorch.zeros(2, dtype=minitorch.complex64).random_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        minitorch.zeros(2, requires_grad=True).random_()


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.bfloat16, minitorch.float64])
def test_cuda_normals_are_standard_normal(dtype):
    # float32 and narrower draw Box-Muller in float, float64 in double: both must be N(0, 1) to sampling error
    minitorch.cuda.manual_seed(3)
    z = minitorch.randn(1 << 20, device="cuda", dtype=dtype).double().cpu().numpy()
    n = z.size
    assert abs(z.mean()) < 5 / np.sqrt(n) and abs(z.std() - 1) < 5 / np.sqrt(2 * n)
    for k, p in ((1, 0.682689492), (2, 0.954499736), (3, 0.997300204)):
        frac = np.mean(np.abs(z) < k)
        assert abs(frac - p) < 5 * np.sqrt(p * (1 - p) / n), (k, frac)
    assert np.isfinite(z).all() and np.abs(z).max() < 9
    w = minitorch.empty(1 << 16, device="cuda", dtype=dtype).normal_(2.0, 0.5).double().cpu().numpy()
    assert abs(w.mean() - 2) < 0.02 and abs(w.std() - 0.5) < 0.02


def test_bernoulli_of_probabilities_draws_rand_below_p():
    """torch.bernoulli(p) is one C++ call: the draws of rand (float32, float64 for a float64 p) compared below
    p, in p's dtype and shape, the same bits with a generator or the default one; p may be strided or empty;
    probabilities outside [0, 1] (NaN too) raise PyTorch's message"""
    for dt in (minitorch.float16, minitorch.float32, minitorch.float64):
        p = minitorch.rand(41, 23, dtype=minitorch.float64).to(dt).t()
        udt = minitorch.float64 if dt == minitorch.float64 else minitorch.float32
        for gen in (True, False):
            g = minitorch.Generator().manual_seed(7) if gen else minitorch.manual_seed(7)
            got = minitorch.bernoulli(p, generator=g) if gen else minitorch.bernoulli(p)
            g = minitorch.Generator().manual_seed(7) if gen else minitorch.manual_seed(7)
            u = minitorch.rand(23, 41, dtype=udt, generator=g) if gen else minitorch.rand(23, 41, dtype=udt)
            assert got.dtype == dt and got.shape == (23, 41) and got._version == 0
            np.testing.assert_array_equal(
                got.float().numpy(), (u.numpy() < p.to(udt).numpy()).astype(np.float32)
            )
    assert minitorch.bernoulli(minitorch.zeros(0, 3)).shape == (0, 3)
    assert minitorch.bernoulli(minitorch.zeros(0, dtype=minitorch.int64)).dtype == minitorch.int64
    assert minitorch.rand(5).bernoulli().shape == (5,)
    for bad in (1.5, -0.25, float("nan")):
        with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
            minitorch.bernoulli(minitorch.tensor([0.5, bad]))
    with pytest.raises(NotImplementedError, match="bernoulli_tensor_cpu_p_"):
        minitorch.bernoulli(minitorch.ones(2, dtype=minitorch.int64))
