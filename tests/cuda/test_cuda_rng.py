"""torch.cuda's generator-state functions (get/set_rng_state[_all], seed, seed_all, initial_seed,
default_generators) and fork_rng over them: PyTorch's behaviour without a GPU (what initializes CUDA raises, what
PyTorch defers until initialization does nothing), and on a GPU, states that replay the same draws."""

import pytest
from utils import no_cuda_error

import minitorch

cuda = minitorch.cuda
HAS_GPU = cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a GPU")
no_gpu = pytest.mark.skipif(HAS_GPU, reason="the behaviour without a GPU")


@no_gpu
@pytest.mark.parametrize(
    "call",
    [lambda: cuda.get_rng_state(), lambda: cuda.get_rng_state(1), lambda: cuda.initial_seed()],
    ids=["get_rng_state", "get_rng_state(1)", "initial_seed"],
)
def test_what_initializes_cuda_raises_without_a_gpu(call):
    with no_cuda_error():
        call()


@no_gpu
def test_deferred_calls_do_nothing_without_a_gpu():
    # PyTorch queues these until CUDA initializes, which never happens here: no error, no effect
    state = minitorch.zeros(16, dtype=minitorch.uint8)
    assert cuda.set_rng_state(state) is None
    assert cuda.set_rng_state(minitorch.zeros(3)) is None  # not checked until it would run, as in PyTorch
    assert cuda.set_rng_state_all([state, state]) is None
    assert cuda.seed() is None and cuda.seed_all() is None
    assert cuda.get_rng_state_all() == []
    assert cuda.default_generators == ()
    cpu_before = minitorch.get_rng_state()
    assert minitorch.equal(minitorch.get_rng_state(), cpu_before)  # the CPU generator untouched


def test_set_rng_state_needs_a_tensor():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'clone'"):
        cuda.set_rng_state([1, 2])


def test_unknown_module_attribute():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        cuda.no_such_thing  # noqa: B018


@no_gpu
def test_fork_rng_forks_the_cpu_state_without_a_gpu():
    minitorch.manual_seed(3)
    with minitorch.random.fork_rng():
        a = minitorch.rand(4)
    assert minitorch.equal(minitorch.rand(4), a)


@needs_gpu
@pytest.mark.parametrize("device", ["cuda", "cuda:0", 0, None])
def test_get_set_rng_state_replays_draws(device):
    kw = {} if device is None else {"device": device}
    cuda.manual_seed(11)
    state = cuda.get_rng_state(**kw)
    assert state.dtype == minitorch.uint8 and state.device.type == "cpu"
    a = minitorch.rand(1000, device="cuda").cpu()
    cuda.set_rng_state(state, **kw)
    b = minitorch.rand(1000, device="cuda").cpu()
    assert minitorch.equal(a, b)
    c = minitorch.rand(1000, device="cuda").cpu()
    assert not minitorch.equal(b, c)


@needs_gpu
def test_rng_state_all_and_seeds():
    states = cuda.get_rng_state_all()
    assert len(states) == cuda.device_count()
    a = minitorch.randn(100, device="cuda").cpu()
    cuda.set_rng_state_all(states)
    assert minitorch.equal(minitorch.randn(100, device="cuda").cpu(), a)
    cuda.manual_seed(5)
    assert cuda.initial_seed() == 5
    assert cuda.seed() is None
    assert cuda.initial_seed() != 5  # a fresh random seed (a 1 in 2**64 chance of a false failure)
    assert cuda.seed_all() is None
    assert all(g.initial_seed() == cuda.initial_seed() for g in cuda.default_generators)
    assert len(cuda.default_generators) == cuda.device_count()


@needs_gpu
def test_fork_rng_restores_the_cuda_state():
    cuda.manual_seed(7)
    with minitorch.random.fork_rng(devices=[0]):
        a = minitorch.rand(10, device="cuda").cpu()
    assert minitorch.equal(minitorch.rand(10, device="cuda").cpu(), a)
