"""The dispatch-stub table (csrc/ops/op_table.h, returned by minitorch._C._op_table("stubs")): every stub has a
kernel on each device unless listed below with its reason, the table agrees with the kernels the source registers,
and its row counts are the ones the C++ static_asserts check."""

import builtins
import itertools
import os
import re
import subprocess

import numpy as np
import pytest
from conftest import DEVICES
from utils import REPO

import minitorch as torch
from tests.ops import op_schema, opdb
from tests.project.test_layering import CSRC, registrations

STUBS = torch._C._op_table("stubs")
# the stubs' entries of the op database: one call each, PyTorch's verdict per dtype and device
CASES, DTYPES, run = opdb.STUB_CASES, opdb.STUB_DTYPES, opdb.run_stub
ORACLE, VERSIONS, verdict = opdb.STUB_ORACLE, opdb.STUB_VERSIONS, opdb.stub_verdict
CUDA_BUILD = torch._C._cuda_compiled()

# Stubs without a CPU kernel, and why.
CUDA_ONLY = {
    "cross_device_copy_stub": "a copy between devices runs on the CUDA side; the CPU never owns both ends",
    "cudnn_conv_forward_stub": "cuDNN's convolution, used instead of conv_forward_stub on CUDA",
    "cudnn_conv_backward_input_stub": "cuDNN's convolution, as above",
    "cudnn_conv_backward_weight_stub": "cuDNN's convolution, as above",
}
# Stubs without a CUDA kernel in a CUDA build, and why (the front end checks for the kernel and falls back).
CPU_ONLY = {
    "cross_stub": "torch.cross/linalg.cross on CUDA compose from ops (linalg/__init__.py cross)",
    "select_stub": "kthvalue/median on CUDA sort the rows and pick (ops/sort.cpp select_along)",
    "gather_dim_stub": "gather on CUDA goes through index_gather_stub with precomputed offsets (ops/index.cpp)",
    "scatter_dim_stub": "scatter on CUDA goes through index_put_stub with precomputed offsets (ops/index.cpp)",
    "sdpa_backward_stub": "SDPA's backward on CUDA is the composite formula (ops/attention.cpp has_fused_sdpa_backward)",
    "pdist_stub": "F.pdist on CUDA composes from ops (nn/functional/_distance.py)",
    "searchsorted_stub": "torch.searchsorted on CUDA composes from ops (_composite_math.py _searchsorted_impl)",
    "histogram_stub": "torch.histc/torch.histogram on CUDA compose from ops (_composite_math.py histc, _histogramdd_impl)",
    "unique_consecutive_stub": "torch.unique_consecutive on CUDA composes from ops (_composite_math.py _run_starts)",
    "equal_stub": "torch.equal on CUDA is all(eq(a, b)) (ops/reduce.cpp equal)",
    "ctc_loss_stub": "F.ctc_loss on CUDA runs its log-space recursions in ops (nn/functional/_ctc.py)",
    "ctc_loss_backward_stub": "F.ctc_loss's gradient on CUDA is the recursions' own (nn/functional/_ctc.py)",
    "grid_sampler_stub": "F.grid_sample on CUDA composes from ops (nn/functional/_sampling.py)",
    "grid_sampler_backward_stub": "F.grid_sample's gradient on CUDA is the composite's, as above",
    "huber_loss_stub": "huber_loss/smooth_l1_loss on CUDA compose the loss and its gradient from ops (ops/loss.cpp)",
    **{
        name: "CUDA tensors take the host LAPACK path (ops/linalg_decomp.cpp kernel_device); no cuSOLVER kernel yet"
        for name in ["ldl_factor_stub", "ldl_solve_stub", "eig_stub"]
    },
}
# Stubs with a CPU kernel but no per-dtype case below, and why.
NO_CASE = {
    "cudnn_rnn_forward_stub": "the fused RNN's CPU kernel is oneDNN's float32 LSTM only: nn.LSTM sends other dtypes "
    "and modes to its composite path, never to the stub (values: tests/ops/rnn/test_rnn_onednn.py)",
    "cudnn_rnn_backward_stub": "the fused RNN's backward, as above",
}
# cuDNN's stubs: their CUDA kernels exist only in a build with cuDNN
CUDNN_STUBS = {name for name in [*CUDA_ONLY, *NO_CASE] if name.startswith("cudnn_")}


def table_count(macro):
    with open(os.path.join(CSRC, "ops", "op_table.h"), encoding="utf-8") as f:
        return int(re.search(rf"#define {macro} (\d+)", f.read()).group(1))


def devices(name):
    return {row[0]: set(row[2]) for row in STUBS}[name]


def test_table_shape():
    names = [name for name, _, _ in STUBS]
    assert len(names) == len(set(names)) == table_count("MT_NUM_DISPATCH_STUBS")
    assert all(name.endswith("_stub") for name in names)
    # the twins come from the schema's `twin` rows: the build carries exactly those, in order
    twins = [(t.name, t.family) for t in op_schema.gen_ops.load_twins() if t.recorded]
    assert torch._C._op_table() == torch._C._op_table("twins") == twins
    with pytest.raises(ValueError, match="kind must be 'twins' or 'stubs'"):
        torch._C._op_table("kernels")


def test_families_are_ops_headers():
    for name, family, _ in STUBS:
        assert os.path.exists(os.path.join(CSRC, "ops", family + ".h")), (name, family)


def test_exception_lists_name_stubs_of_the_table():
    names = {name for name, _, _ in STUBS}
    assert set(CUDA_ONLY) <= names and set(CPU_ONLY) <= names
    assert not set(CUDA_ONLY) & set(CPU_ONLY)


@pytest.mark.parametrize("name", [row[0] for row in STUBS])
def test_every_stub_has_a_cpu_kernel(name):
    if name in CUDA_ONLY:
        assert "cpu" not in devices(name), f"{name} has a CPU kernel now: drop it from CUDA_ONLY"
    else:
        assert "cpu" in devices(name), f"{name} has no CPU kernel"


@pytest.mark.skipif(not CUDA_BUILD, reason="a CPU-only build registers no CUDA kernel")
@pytest.mark.parametrize("name", [row[0] for row in STUBS])
def test_every_stub_has_a_cuda_kernel_in_a_cuda_build(name):
    if name in CPU_ONLY:
        assert "cuda" not in devices(name), f"{name} has a CUDA kernel now: drop it from CPU_ONLY"
    elif name in CUDNN_STUBS and not torch._C._has_cudnn:
        pytest.skip("built without cuDNN")
    else:
        assert "cuda" in devices(name), f"{name} has no CUDA kernel"


def test_table_agrees_with_the_registrations_in_the_source():
    # What the running binary registered is what the source says it registers (kernels/{cpu,cuda}/*), so the
    # table cannot list a stub nobody implements nor miss one a kernel file registers.
    source = {}
    for _, stub, dev, _ in registrations():
        source.setdefault(stub + "_stub", set()).add(dev.lower())
    binary = {name: set(devs) for name, _, devs in STUBS}
    assert set(source) == set(binary)
    for name, devs in binary.items():
        assert devs <= source[name], name
        expected = set(source[name]) if CUDA_BUILD else source[name] - {"cuda"}
        if not torch._C._has_cudnn:
            expected -= {"cuda"} if name in CUDNN_STUBS else set()
        assert devs == expected, name


# ---- every (stub, dtype) pair: the call of tests/ops/stub_cases.py gives PyTorch's values or raises as PyTorch does

# Pairs where minitorch and PyTorch 2.15 disagree on whether the call is valid, each with its reason. A pair that
# starts agreeing fails test_stub_dtype_pair, so the list only shrinks.
KNOWN_DIFFERENCES = {}
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}


def expected_error(name):
    # PyTorch raises NotImplementedError (a RuntimeError) for a dtype a kernel lacks; minitorch raises RuntimeError
    # there, so code catching RuntimeError behaves the same on both.
    return RuntimeError if name == "NotImplementedError" else getattr(builtins, name)


def test_every_stub_with_a_cpu_kernel_has_a_case():
    assert set(CASES) == {name for name, _, _ in STUBS} - set(CUDA_ONLY) - set(NO_CASE)


def test_oracle_covers_every_case():
    # tests/ops/stub_dtype_oracle.py is regenerated by scripts/classify_stub_dtypes.py when a case changes (its
    # CUDA column by the same script on a GPU machine, --device cuda); every row has the CPU's verdict
    assert set(ORACLE) == set(itertools.product(CASES, DTYPES))
    assert all("cpu" in row and set(row) <= {"cpu", "cuda"} for row in ORACLE.values())
    # a CUDA verdict is stored only where it differs from the CPU's
    assert all(row["cuda"] != row["cpu"] for row in ORACLE.values() if "cuda" in row)
    assert set(KNOWN_DIFFERENCES) <= set(ORACLE)


def test_oracle_is_what_the_classifier_gives():
    """The CPU column is what scripts/classify_stub_dtypes.py gets from PyTorch now (--check): a case edited in
    stub_cases.py without regenerating the table fails here, not only as a wrong verdict on minitorch."""
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    ask = "import torch; print(torch.__version__.split('+')[0])"
    version = subprocess.run([py, "-c", ask], capture_output=True, text=True, check=True).stdout.strip()
    if version != VERSIONS["cpu"]:
        pytest.skip(f"the CPU column is PyTorch {VERSIONS['cpu']}'s, MINITORCH_ORACLE_PYTHON has {version}")
    script = os.path.join(REPO, "scripts", "classify_stub_dtypes.py")
    r = subprocess.run([py, script, "--check"], capture_output=True, text=True, check=False, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def known_differences(device):
    # PyTorch's CUDA kernels refuse some dtypes its CPU kernels take (integer GEMM, convolution, pooling): a
    # difference listed for the CPU remains one on CUDA only where PyTorch's answer is the same on both.
    if device == "cpu":
        return KNOWN_DIFFERENCES
    return {k: v for k, v in KNOWN_DIFFERENCES.items() if verdict(*k, "cuda")[0] == verdict(*k, "cpu")[0]}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("stub,dtype", sorted(ORACLE))
def test_stub_dtype_pair(stub, dtype, device):
    # whether the call is valid: PyTorch on the same device; the values: PyTorch's CPU results (the CUDA
    # oracle's come from another PyTorch release and its own random streams)
    want = verdict(stub, dtype, "cpu")
    if device == "cuda" and verdict(stub, dtype, "cuda")[0] != want[0]:
        want = verdict(stub, dtype, "cuda")
    torch.manual_seed(0)
    got = run(torch, stub, dtype, device)
    if (stub, dtype) in known_differences(device):
        assert got[0] != want[0], f"{stub}/{dtype} now agrees with PyTorch: drop it from KNOWN_DIFFERENCES"
        return
    if want[0] == "err":
        assert got[0] == "err", (
            f"{stub}/{dtype}: PyTorch raises {want[1]}: {want[2]}, minitorch returned a value"
        )
        assert issubclass(getattr(builtins, got[1], Exception), expected_error(want[1])), (got, want)
        return
    assert got[0] == "ok", f"{stub}/{dtype}: PyTorch returns a value, minitorch raised {got[1]}: {got[2]}"
    rtol, atol = TOL.get(dtype, (0, 0))
    if stub.startswith("fft_") and device == "cuda":
        # integer inputs transform in float32, and cuFFT rounds differently from the CPU's pocketfft
        rtol, atol = TOL["float64" if dtype == "float64" else "float32"]
    np.testing.assert_allclose(got[1], np.asarray(want[1]), rtol=rtol, atol=atol)
