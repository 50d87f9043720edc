"""The CUDA runtime: lazy init, devices, copies (pinned, non_blocking), the caching allocator's statistics and
out-of-memory recovery, streams and events. Skipped without a GPU; PyTorch is a second oracle where present."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from utils import ALL_DTYPES, expanded_array, make_array, make_tensor, to_np

import minitorch as torch

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU"),
]
# compute-sanitizer runs these with the caching allocator off: block sizes are then exact, nothing is cached
CACHING = os.environ.get("MINITORCH_NO_CUDA_MEMORY_CACHING", "0") in ("", "0")
needs_caching = pytest.mark.skipif(not CACHING, reason="tests the caching allocator's policy")


def run_py(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


# ---- init and devices
def test_import_does_not_initialize_cuda():
    r = run_py(
        "import minitorch; print(minitorch.cuda.is_initialized()); minitorch.zeros(2, device='cuda');"
        "print(minitorch.cuda.is_initialized())"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "True"]


def test_device_queries():
    assert torch.cuda.device_count() >= 1
    assert 0 <= torch.cuda.current_device() < torch.cuda.device_count()
    p = torch.cuda.get_device_properties(0)
    assert p.total_memory > 2**30 and p.multi_processor_count > 0 and p.major >= 7
    assert torch.cuda.get_device_name(0) == p.name
    assert torch.cuda.get_device_capability(0) == (p.major, p.minor)
    assert "multi_processor_count" in repr(p)
    free, total = torch.cuda.mem_get_info()
    assert 0 < free <= total == p.total_memory


def test_bad_device_index():
    n = torch.cuda.device_count()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.zeros(2, device=f"cuda:{n}")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.cuda.set_device(n)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.ones(2).to(f"cuda:{n + 3}")
    assert torch.zeros(2, device="cuda").device == torch.device("cuda:0")


def test_device_context_manager():
    with torch.cuda.device(0):
        assert torch.cuda.current_device() == 0
        assert torch.empty(1, device="cuda").device.index == 0
    x = torch.zeros(1, device="cuda:0")
    with torch.cuda.device_of(x):
        assert torch.cuda.current_device() == 0


def test_fork_after_init_refuses_cuda():
    r = run_py(
        """
        import os, minitorch
        minitorch.zeros(1, device='cuda')
        pid = os.fork()
        if pid == 0:
            try:
                minitorch.zeros(1, device='cuda')
                os._exit(3)
            except RuntimeError as e:
                os._exit(0 if 'Cannot re-initialize CUDA in forked subprocess' in str(e) else 4)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"


# ---- copies
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "expanded"])
def test_roundtrip_every_dtype_and_layout(dtype, layout):
    rng = np.random.default_rng(0)
    a = make_array((5, 7), dtype, rng)
    x = make_tensor(a, dtype, "cpu", layout)
    if layout == "expanded":
        a = expanded_array(a)
    g = x.cuda()
    assert g.is_cuda and g.device == torch.device("cuda:0") and g.dtype == dtype
    np.testing.assert_array_equal(to_np(g.cpu()), a)
    np.testing.assert_array_equal(to_np(g.to("cpu")), a)
    # device -> device (same device), and into a non-contiguous CUDA destination
    d = torch.empty(7, 5, dtype=dtype, device="cuda").t()
    d.copy_(g)
    np.testing.assert_array_equal(to_np(d.cpu()), a)
    # CPU destination that is not contiguous
    h = torch.empty(7, 5, dtype=dtype).t()
    h.copy_(g)
    np.testing.assert_array_equal(to_np(h), a)


def test_copy_with_dtype_change_and_broadcast_across_devices():
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    g = x.to("cuda", torch.float64)
    assert g.dtype == torch.float64 and g.is_cuda
    np.testing.assert_array_equal(g.cpu().numpy(), np.arange(6.0).reshape(2, 3))
    dst = torch.zeros(4, 3, device="cuda")
    dst.copy_(torch.tensor([1.0, 2.0, 3.0]))  # broadcast from the host
    np.testing.assert_array_equal(dst.cpu().numpy(), np.tile([1.0, 2.0, 3.0], (4, 1)))
    back = torch.zeros(2, 3, dtype=torch.float16)
    back.copy_(g)
    np.testing.assert_array_equal(back.float().numpy(), np.arange(6.0).reshape(2, 3))


def test_empty_and_scalar_copies():
    e = torch.empty(0, 3, device="cuda")
    assert e.shape == (0, 3) and e.cpu().shape == (0, 3)
    s = torch.tensor(2.5).cuda()
    assert s.dim() == 0 and s.item() == 2.5


def test_pin_memory_and_non_blocking():
    x = torch.arange(1 << 20, dtype=torch.float32)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    assert p.pin_memory() is p or p.pin_memory().data_ptr() == p.data_ptr()
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    g = p.to("cuda", non_blocking=True)
    h = g.to("cpu", non_blocking=True)
    assert h.is_pinned()  # D2H non_blocking lands in pinned memory
    torch.cuda.synchronize()
    np.testing.assert_array_equal(h.numpy(), x.numpy())
    g2 = p.cuda(non_blocking=True)
    torch.cuda.current_stream().synchronize()
    np.testing.assert_array_equal(g2.cpu().numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        g.pin_memory()


def test_pinned_buffer_reuse_waits_for_the_copy():
    # A pinned source freed right after an async copy must not be recycled before the copy has read it.
    for i in range(20):
        src = torch.full((1 << 18,), float(i)).pin_memory()
        dst = src.to("cuda", non_blocking=True)
        del src
        junk = torch.full((1 << 18,), -1.0).pin_memory()  # may reuse the block only after the copy
        assert dst.cpu()[0].item() == float(i)
        del junk


def test_numpy_on_cuda_tensor_raises():
    msg = (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
        "first."
    )
    with pytest.raises(TypeError) as e:
        torch.ones(2, device="cuda").numpy()
    assert str(e.value) == msg


def test_cuda_method_rejects_cpu_device():
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        torch.ones(1).cuda("cpu")
    assert torch.ones(1).cuda(0).device == torch.device("cuda:0")


# ---- caching allocator
def test_memory_stats_track_allocations():
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    x = torch.empty(1000, device="cuda")  # 4000 bytes round to 4096 (8 without caching)
    size = 4096 if CACHING else 4000
    assert torch.cuda.memory_allocated() - base == size
    assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    y = torch.empty(3 << 20, dtype=torch.uint8, device="cuda")
    assert torch.cuda.memory_allocated() - base == size + (3 << 20)
    peak = torch.cuda.max_memory_allocated()
    assert peak >= torch.cuda.memory_allocated()
    del x, y
    assert torch.cuda.memory_allocated() == base
    assert torch.cuda.max_memory_allocated() == peak
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == base
    st = torch.cuda.memory_stats()
    for k in ("allocated_bytes.all.current", "reserved_bytes.all.peak", "num_alloc_retries", "num_ooms"):
        assert k in st


@needs_caching
def test_freed_memory_is_reused_and_empty_cache_returns_it():
    torch.cuda.empty_cache()
    r0 = torch.cuda.memory_reserved()
    x = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    ptr = x.data_ptr()
    r1 = torch.cuda.memory_reserved()
    assert r1 - r0 >= 64 << 20
    del x
    assert torch.cuda.memory_reserved() == r1  # cached, not returned
    y = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    assert y.data_ptr() == ptr  # the cached block is reused
    del y
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() == r0


@needs_caching
def test_small_blocks_split_one_segment():
    torch.cuda.empty_cache()
    r0 = torch.cuda.memory_reserved()
    xs = [torch.empty(128, device="cuda") for _ in range(100)]  # 512 bytes each
    # split out of at most one new 2 MiB segment (a partly used one may already be cached), never 100 mallocs
    assert torch.cuda.memory_reserved() - r0 <= 2 << 20
    assert len({x.data_ptr() for x in xs}) == 100
    del xs


def test_out_of_memory_raises_and_recovers():
    ooms = torch.cuda.memory_stats()["num_ooms"]
    with pytest.raises(torch.cuda.OutOfMemoryError) as e:
        torch.empty(1 << 46, dtype=torch.uint8, device="cuda")  # 64 TiB
    assert isinstance(e.value, RuntimeError)
    assert str(e.value).startswith("CUDA out of memory. Tried to allocate 64.00 TiB")
    assert torch.cuda.memory_stats()["num_ooms"] == ooms + 1
    x = torch.ones(10, device="cuda")  # the process keeps working
    assert x.sum().item() == 10.0


@needs_caching
def test_no_caching_env_switch():
    r = run_py(
        """
        import minitorch as torch
        x = torch.empty(1000, device='cuda')
        a = torch.cuda.memory_reserved()
        del x
        print(a, torch.cuda.memory_reserved(), torch.cuda.memory_allocated())
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2097152", "2097152", "0"]
    r = run_py(
        """
        import os
        os.environ['MINITORCH_NO_CUDA_MEMORY_CACHING'] = '1'
        import minitorch as torch
        x = torch.empty(1000, device='cuda')
        a = torch.cuda.memory_reserved()
        del x
        print(a, torch.cuda.memory_reserved())
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["4000", "0"]


# ---- streams and events
def test_streams_and_context():
    default = torch.cuda.current_stream()
    assert default == torch.cuda.default_stream()
    s = torch.cuda.Stream()
    assert s != default and s.device == torch.device("cuda:0")
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
    assert torch.cuda.current_stream() == default
    with torch.cuda.stream(None):
        assert torch.cuda.current_stream() == default
    assert "torch.cuda.Stream" in repr(s)
    lo, hi = torch.cuda.get_stream_priority_range()
    assert hi <= lo
    torch.cuda.Stream(priority=-1).synchronize()


def test_work_on_a_side_stream_is_ordered():
    x = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = x * 2 + 1
        y.record_stream(s)
    torch.cuda.current_stream().wait_stream(s)
    s.synchronize()
    assert s.query()
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(1 << 20, dtype=np.float32) * 2 + 1)


def test_events_time_and_order():
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    x = torch.ones(1 << 22, device="cuda")
    start.record()
    for _ in range(10):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query()
    ms = start.elapsed_time(end)
    assert 0 < ms < 10_000
    e = torch.cuda.Event()
    e.record()
    e.wait()
    e.synchronize()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        e.elapsed_time(end)


# ---- random numbers drawn on the device
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_device_random_distributions(dtype):
    torch.manual_seed(123)
    u = torch.rand(1 << 18, device="cuda", dtype=dtype)
    assert u.is_cuda and u.dtype == dtype
    un = u.double().cpu().numpy()
    assert un.min() >= 0.0 and un.max() < 1.0
    assert abs(un.mean() - 0.5) < 0.01 and abs(un.var() - 1 / 12) < 0.01
    n = torch.randn(1 << 18, device="cuda", dtype=dtype).double().cpu().numpy()
    assert abs(n.mean()) < 0.02 and abs(n.std() - 1.0) < 0.02
    e = torch.empty(1000, 3, device="cuda", dtype=dtype).uniform_(-2.0, -1.0)
    en = e.double().cpu().numpy()
    assert en.min() >= -2.0 and en.max() < -1.0


def test_device_random_integers_bernoulli_and_layouts():
    r = torch.randint(3, 9, (100000,), device="cuda").cpu().numpy()
    assert r.min() == 3 and r.max() == 8 and set(np.unique(r)) == set(range(3, 9))
    b = torch.empty(100000, device="cuda").bernoulli_(0.25).cpu().numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.01
    t = torch.zeros(64, 32, device="cuda").t()  # non-contiguous destination
    t.normal_(5.0, 0.5)
    tn = t.cpu().numpy()
    assert abs(tn.mean() - 5.0) < 0.05 and tn.std() > 0.4
    assert torch.rand(0, device="cuda").shape == (0,)


def test_device_random_is_seeded_per_device():
    torch.manual_seed(7)
    a = torch.randn(1000, device="cuda").cpu()
    c1 = torch.randn(10).numpy()
    torch.manual_seed(7)
    b = torch.randn(1000, device="cuda").cpu()
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy()[:10], b.numpy()[10:20])
    # torch.cuda.manual_seed touches only the CUDA generator
    torch.manual_seed(7)
    torch.cuda.manual_seed(99)
    c2 = torch.randn(10).numpy()
    np.testing.assert_array_equal(c1, c2)
    assert not np.array_equal(torch.randn(1000, device="cuda").cpu().numpy(), a.numpy())
    assert torch.cuda.initial_seed() == 99
