"""Writes the tutorial notebooks (notebooks/*.ipynb) from the cell sources below; run it after editing them.

    python notebooks/make_notebooks.py

The notebooks are generated rather than hand-edited so their JSON stays small, reviewable and free of outputs.
"""

import os

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = os.path.dirname(os.path.abspath(__file__))

# Colab users open a notebook with nothing installed; under the test runner (and in a dev checkout) minitorch
# already imports, so the install is skipped and the notebook runs against the code being tested.
INSTALL = """\
# Install minitorch the way Colab users would. Skipped when minitorch already imports (a dev checkout, the
# tests). MINITORCH_SRC is a git URL ("git+https://...") or a local checkout; ".." is the repository root when
# this notebook is opened from its notebooks/ folder. Building the C++/CUDA core takes a few minutes.
import importlib.util
import os

if importlib.util.find_spec("minitorch") is None:
    MINITORCH_SRC = os.environ.get("MINITORCH_SRC", "..")
    %pip install -q {MINITORCH_SRC}"""

IMPORTS = """\
import minitorch as torch

print("minitorch", torch.__version__)
print("CUDA available:", torch.cuda.is_available())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("using", device)"""

SIMPLE_NN = """\
import minitorch.nn as nn


class SimpleNN(nn.Module):
    def __init__(self):
        super(SimpleNN, self).__init__()
        self.fc1 = nn.Linear(3, 10)
        self.fc2 = nn.Linear(10, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.fc2(x)
        return x"""


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text):
    return new_code_cell(text.strip("\n"))


NOTEBOOKS = {}

# Colab: a fresh VM with nothing installed; the cell builds minitorch from the repository (for the GPU the
# VM has: the build reads its architecture from nvidia-smi). Skipped where minitorch already imports.
COLAB_INSTALL = """\
# Install minitorch from its repository (Colab: Runtime > Change runtime type > T4 GPU first). Skipped when
# minitorch already imports (a dev checkout, the tests). Set MINITORCH_SRC to your repository's git URL
# ("git+https://...") or a local checkout; ".." is the repository root when opened from notebooks/.
# The build compiles the C++ core and the CUDA kernels for the GPU nvidia-smi reports: a few minutes.
import importlib.util
import os

MINITORCH_SRC = os.environ.get("MINITORCH_SRC", "..")  # e.g. "git+https://github.com/<owner>/minitorch.git"

if importlib.util.find_spec("minitorch") is None:
    if not MINITORCH_SRC.startswith("git+") and not os.path.isdir(MINITORCH_SRC):
        raise RuntimeError(f"set MINITORCH_SRC to minitorch's git URL or a checkout ({MINITORCH_SRC!r} is neither)")
    os.environ.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    SPEC = f"minitorch[examples] @ {MINITORCH_SRC}" if MINITORCH_SRC.startswith("git+") else f"{MINITORCH_SRC}[examples]"
    %pip install -q "{SPEC}"
    print("installed: restart the runtime if `import minitorch` below fails (Colab sometimes needs it)")"""

NOTEBOOKS["00_colab_quickstart"] = [
    md("""
# 00 · Quick start (Colab)

Installs minitorch from its repository, checks the GPU, and trains the tutorials' network with automatic
mixed precision. On Colab pick a GPU runtime first (Runtime > Change runtime type > T4 GPU); every cell also
runs on a CPU-only machine, where the GPU cells say they are skipped.
"""),
    code(COLAB_INSTALL),
    code(IMPORTS),
    md("""
## What was built, and for which GPU

`python -m minitorch.utils.collect_env` prints what to paste into a bug report: the CUDA toolkit and the GPU
architectures the build compiled, cuDNN/NCCL/Gloo, the GPUs present and whether the build has kernels for
them. A build made on a machine with a GPU compiles for exactly that GPU (a T4 is sm_75); a GPU the build has
no kernels for raises a RuntimeError at its first use that says how to rebuild (`CUDAARCHS=75 pip install ...`).
"""),
    code("""
from minitorch.utils import collect_env

print(collect_env.get_pretty_env_info())
"""),
    code("""
if torch.cuda.is_available():
    props = torch.cuda.get_device_properties(0)
    print(props.name, f"sm_{props.major}{props.minor}", f"{props.total_memory / 2**30:.1f} GiB")
    a = torch.randn(512, 512)
    gpu = (a.to(device) @ a.to(device)).cpu()
    print("GPU matmul matches the CPU:", torch.allclose(gpu, a @ a, rtol=1e-3, atol=1e-3))
else:
    print("no GPU here: skipping the GPU check, training runs on the CPU")
"""),
    md("""
## The tutorials' network, trained with AMP

`autocast` runs the linear layers in float16 on the GPU (bfloat16 on the CPU) while the weights stay float32;
`GradScaler` scales the loss so small float16 gradients do not underflow (it is only needed for float16).
"""),
    code(SIMPLE_NN),
    code("""
import minitorch.optim as optim

torch.manual_seed(0)
model = SimpleNN().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.5)
amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
scaler = torch.amp.GradScaler(device.type, enabled=amp_dtype == torch.float16)

inputs = torch.randn(100, 3).to(device)
labels = (inputs[:, 0] > 0).long()  # learnable: the class is the sign of the first feature
losses = []
for step in range(300):
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type, dtype=amp_dtype):
        outputs = model(inputs)
        loss = criterion(outputs, labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.item())
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}  (outputs in {outputs.dtype})")

with torch.no_grad():
    accuracy = (model(inputs).argmax(dim=1) == labels).float().mean().item()
print(f"first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}, accuracy {accuracy:.2f}")
assert losses[-1] < 0.5 * losses[0] and accuracy > 0.9
"""),
    md("""
## Next: real data

`examples/train_tutorial.py` (the README's main job) goes on to an MLP on scikit-learn's handwritten digits
with a progress bar, a test accuracy line and a saved loss/accuracy plot: `python examples/train_tutorial.py`
from a clone, or `python examples/train_digits.py --amp` for the digits part alone.
"""),
]

NOTEBOOKS["01_device_basics"] = [
    md("""
# 01 · Devices and CUDA tensors

minitorch has PyTorch's API, so the tutorials' code runs after `import minitorch as torch`. This notebook
covers the basics: checking for a GPU, choosing a device, creating and moving tensors, and moving a model.
Every cell runs on a CPU-only machine too; the GPU-only cells say so and skip.
"""),
    code(INSTALL),
    code(IMPORTS),
    md("""
## Which GPUs are there?

`torch.cuda.is_available()` never raises: without a driver or a GPU it is simply `False`. Importing minitorch
does not touch the driver; the first CUDA use initializes it.
"""),
    code("""
print("device_count:", torch.cuda.device_count())
for i in range(torch.cuda.device_count()):
    props = torch.cuda.get_device_properties(i)
    print(f"cuda:{i}", props.name, f"{props.total_memory / 2**30:.1f} GiB",
          f"compute capability {props.major}.{props.minor}", f"{props.multi_processor_count} SMs")
if not torch.cuda.is_available():
    print("no GPU here: every example below runs on the CPU")
"""),
    md("""
## Creating tensors on a device

A tensor lives on one device. Move it with `.to(device)` (or `.cuda()` / `.cpu()`), or create it there
directly with the `device=` argument, which avoids a host-to-device copy.
"""),
    code("""
tensor = torch.randn(5, 5)          # created on the CPU
tensor = tensor.to(device)          # moved (a no-op when device is the CPU)
print(tensor.device, tensor.is_cuda, tensor.dtype, tuple(tensor.shape))

direct = torch.ones(2, 3, device=device)   # allocated on the device, no copy
print(direct.device)
"""),
    md("""
## Operations run where their inputs are

An op's result is on its inputs' device. To read values on the host use `.cpu()`, `.item()`, `.tolist()` or
`.numpy()` (CPU tensors only); these are the calls that wait for the GPU.
"""),
    code("""
a = torch.randn(3, 3, device=device)
b = torch.randn(3, 3, device=device)
c = a @ b + 1
print(c.device)
print(c.cpu().numpy().round(3))
print("sum:", c.sum().item())
"""),
    md("""
Tensors on different devices cannot be combined: move one first. (On a CPU-only machine there is only one
device, so the cell shows the error only on a GPU.)
"""),
    code("""
if torch.cuda.is_available():
    try:
        torch.randn(2) + torch.randn(2, device="cuda")
    except RuntimeError as e:
        print("RuntimeError:", str(e).splitlines()[0])
else:
    print("skipped: needs a GPU")
"""),
    md("""
## Moving a model

`model.to(device)` moves every parameter and buffer. The inputs must be moved too.
"""),
    code(SIMPLE_NN),
    code("""
model = SimpleNN().to(device)
print({name: str(p.device) for name, p in model.named_parameters()})
inputs = torch.randn(4, 3).to(device)
outputs = model(inputs)
print(outputs.shape, outputs.device)
"""),
    md("""
## Selecting a GPU

`torch.cuda.set_device(i)` and the `torch.cuda.device(i)` context choose the current GPU, which is what
`"cuda"` without an index means.
"""),
    code("""
if torch.cuda.is_available():
    with torch.cuda.device(0):
        x = torch.zeros(1, device="cuda")
        print("current device:", torch.cuda.current_device(), "->", x.device,
              torch.cuda.get_device_name(0))
else:
    print("skipped: needs a GPU")
"""),
]

NOTEBOOKS["02_matmul_timing"] = [
    md("""
# 02 · CPU vs GPU matrix multiply, timed right

GPU work is asynchronous: an op returns once the kernel is queued. Timing it correctly needs
1. a **warm-up** (the first call pays for CUDA initialization, cuBLAS handles and memory allocation),
2. `torch.cuda.synchronize()` **before reading the clock**, so the queued kernels have finished,
3. **several repeats** (report the median) and **several sizes**, because small problems do not fill a GPU.

On a CPU-only machine this notebook times the CPU and says the GPU part is skipped.
"""),
    code(INSTALL),
    code(IMPORTS),
    code("""
import statistics
import time


def bench(fn, device, repeats=5, warmup=2):
    \"\"\"Median seconds per call of fn(), synchronizing the GPU around each timed call.\"\"\"
    for _ in range(warmup):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()   # wait for the kernel, not just its launch
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
"""),
    md("""
## The CPU

`torch.matmul` on float32 uses OpenBLAS on the CPU. An n×n by n×n product is 2n³ floating-point operations.
"""),
    code("""
cpu = torch.device("cpu")
cpu_sizes = [32, 64, 128, 256, 512]
cpu_times = {}
for n in cpu_sizes:
    a, b = torch.randn(n, n), torch.randn(n, n)
    cpu_times[n] = bench(lambda: torch.matmul(a, b), cpu)
    print(f"n={n:5d}  {cpu_times[n] * 1e3:8.3f} ms  {2 * n**3 / cpu_times[n] / 1e9:7.2f} GFLOP/s")
"""),
    md("""
## The GPU

Three numbers per size: the CPU; the GPU with the data already on it; and the GPU **including the copies**
to and from the host, which is what a one-off computation on CPU data really costs. For small matrices the
launch and copy overheads dominate and the CPU wins: that is where the GPU stops paying off.

The wrong way first: without `synchronize()` the clock only measures the kernel launch.
"""),
    code("""
if torch.cuda.is_available():
    gpu = torch.device("cuda")
    a, b = torch.randn(2048, 2048, device=gpu), torch.randn(2048, 2048, device=gpu)
    torch.matmul(a, b); torch.cuda.synchronize()   # warm-up
    t0 = time.perf_counter(); c = torch.matmul(a, b); t_launch = time.perf_counter() - t0
    torch.cuda.synchronize()
    t_real = bench(lambda: torch.matmul(a, b), gpu)
    print(f"without synchronize: {t_launch * 1e3:.3f} ms (just the launch)")
    print(f"with synchronize:    {t_real * 1e3:.3f} ms")
else:
    print("skipped: no GPU on this machine")
"""),
    code("""
sizes = cpu_sizes + ([1024, 2048] if torch.cuda.is_available() else [])
results = []   # (n, cpu_s, gpu_s, gpu_with_copies_s)
if torch.cuda.is_available():
    gpu = torch.device("cuda")
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        t_cpu = cpu_times[n] if n in cpu_times else bench(lambda: torch.matmul(a, b), cpu, repeats=2, warmup=1)
        ag, bg = a.to(gpu), b.to(gpu)
        t_gpu = bench(lambda: torch.matmul(ag, bg), gpu)
        t_copy = bench(lambda: torch.matmul(a.to(gpu), b.to(gpu)).cpu(), gpu)
        results.append((n, t_cpu, t_gpu, t_copy))
        print(f"n={n:5d}  cpu {t_cpu * 1e3:9.3f} ms  gpu {t_gpu * 1e3:8.3f} ms  "
              f"gpu+copies {t_copy * 1e3:8.3f} ms  speedup {t_cpu / t_gpu:7.1f}x ({t_cpu / t_copy:6.1f}x with copies)")
else:
    print("GPU part skipped: no GPU on this machine (the plot below shows the CPU alone)")
"""),
    code("""
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
if results:
    ns = [r[0] for r in results]
    ax.plot(ns, [r[1] / r[2] for r in results], "o-", label="GPU (data on device)")
    ax.plot(ns, [r[1] / r[3] for r in results], "s--", label="GPU incl. host<->device copies")
    ax.axhline(1.0, color="gray", lw=1)
    ax.set_ylabel("speedup over the CPU (x)")
    ax.set_title("matmul: where the GPU starts to pay off")
    losing = [n for n, c, g, gc in results if c < gc]
    if losing:
        print(f"with copies included, the CPU is faster up to n={max(losing)}")
else:
    ax.plot(cpu_sizes, [2 * n**3 / cpu_times[n] / 1e9 for n in cpu_sizes], "o-", label="CPU")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("matmul on the CPU (no GPU here)")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("n (n x n @ n x n, float32)")
ax.legend()
plt.show()
"""),
]

NOTEBOOKS["03_training_loop"] = [
    md("""
# 03 · The full training loop

The tutorials' `SimpleNN` (3 → 10 → 2 with a ReLU), `nn.CrossEntropyLoss` and `optim.SGD`, on the GPU when
there is one. The five steps of every iteration: zero the gradients, forward, loss, backward, step.
"""),
    code(INSTALL),
    code(IMPORTS),
    code(SIMPLE_NN),
    md("""
A small learnable problem: the label is the sign of the first feature. Model and data go to the same device.
"""),
    code("""
import minitorch.optim as optim

torch.manual_seed(0)
model = SimpleNN().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.5)

inputs = torch.randn(256, 3).to(device)
labels = (inputs[:, 0] > 0).long()
print(inputs.shape, labels.shape, labels.device)
"""),
    code("""
losses = []
for epoch in range(200):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())   # .item() waits for the GPU; fine for a curve, costly in a hot loop
    if epoch % 50 == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.4f}")
print(f"final loss {losses[-1]:.4f}")
"""),
    code("""
import matplotlib.pyplot as plt

plt.figure(figsize=(6, 3.5))
plt.plot(losses)
plt.xlabel("epoch")
plt.ylabel("cross-entropy loss")
plt.yscale("log")
plt.title(f"SimpleNN on {device}")
plt.show()
"""),
    md("""
## Evaluation

`model.eval()` and `torch.no_grad()` for inference: no graph is recorded, so it is faster and uses less memory.
"""),
    code("""
model.eval()
with torch.no_grad():
    test_inputs = torch.randn(1000, 3, device=device)
    test_labels = (test_inputs[:, 0] > 0).long()
    accuracy = (model(test_inputs).argmax(dim=1) == test_labels).float().mean().item()
print(f"held-out accuracy: {accuracy:.3f}")
assert accuracy > 0.9, "training did not converge"
"""),
    md("""
## Saving and loading

Save the `state_dict`; load it onto whichever device you have with `map_location`.
"""),
    code("""
import io

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
restored = SimpleNN()
restored.load_state_dict(torch.load(buffer, map_location="cpu"))
with torch.no_grad():
    same = torch.allclose(restored(test_inputs.cpu()), model(test_inputs).cpu())
print("restored model gives the same outputs:", same)
"""),
]

NOTEBOOKS["04_cudnn_convolution"] = [
    md("""
# 04 · Convolutions, cuDNN and `cudnn.benchmark`

On the GPU, `nn.Conv2d` runs through cuDNN. cuDNN has several algorithms per convolution; with
`torch.backends.cudnn.benchmark = True` the first call for each new input shape times them and caches the
fastest, so later calls with the same shapes are faster. It pays off when shapes stay fixed; with shapes that
change every step the search repeats. `cudnn.deterministic = True` restricts the choice to deterministic
algorithms. On the CPU, convolutions use im2col + OpenBLAS and these flags have no effect.
"""),
    code(INSTALL),
    code(IMPORTS),
    code("""
print("cuDNN built in:", torch.backends.cudnn.is_available(), "version:", torch.backends.cudnn.version())
print("enabled:", torch.backends.cudnn.enabled, " benchmark:", torch.backends.cudnn.benchmark,
      " deterministic:", torch.backends.cudnn.deterministic)
"""),
    md("""
A small CNN for 1×28×28 images.
"""),
    code("""
import minitorch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


torch.manual_seed(0)
model = SmallCNN().to(device)
x = torch.randn(8, 1, 28, 28, device=device)
print(model(x).shape)
"""),
    md("""
The same network gives the same answer on the CPU and on the GPU (up to float32 rounding; cuDNN may use TF32
on recent GPUs, hence the looser tolerance there).
"""),
    code("""
if torch.cuda.is_available():
    cpu_model = SmallCNN()
    cpu_model.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
    with torch.no_grad():
        diff = (cpu_model(x.cpu()) - model(x).cpu()).abs().max().item()
    print(f"max |cpu - gpu| = {diff:.2e}")
    assert diff < 1e-2
else:
    print("skipped: needs a GPU")
"""),
    md("""
## Timing with and without `benchmark`

Each setting gets a fresh input shape so the first call shows the algorithm search. Time a training step
(forward + backward), synchronizing before reading the clock.
"""),
    code("""
import time


def step_time(model, x, repeats=10):
    def step():
        model.zero_grad()
        model(x).sum().backward()
    t0 = time.perf_counter(); step()
    if x.is_cuda:
        torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(repeats):
        step()
    if x.is_cuda:
        torch.cuda.synchronize()
    return first, (time.perf_counter() - t0) / repeats


batch = 64 if torch.cuda.is_available() else 8
for bench_flag, size in [(False, 28), (True, 32)]:
    torch.backends.cudnn.benchmark = bench_flag
    xb = torch.randn(batch, 1, size, size, device=device)
    model.classifier = nn.Linear(32 * (size // 4) ** 2, 10).to(device)
    first, steady = step_time(model, xb)
    print(f"cudnn.benchmark={bench_flag!s:5}  first step {first * 1e3:8.2f} ms  then {steady * 1e3:7.2f} ms/step")
torch.backends.cudnn.benchmark = False
if not torch.cuda.is_available():
    print("(CPU run: the flags do nothing here; on a GPU the first benchmark=True step includes the search)")
"""),
    md("""
## Deterministic algorithms

For bit-for-bit reproducible runs, set `deterministic = True` (and usually `benchmark = False`). The
`torch.backends.cudnn.flags(...)` context manager sets flags for one block.
"""),
    code("""
with torch.backends.cudnn.flags(enabled=True, benchmark=False, deterministic=True):
    print("inside: deterministic =", torch.backends.cudnn.deterministic)
    with torch.no_grad():
        y1, y2 = model(xb), model(xb)
    print("two runs identical:", torch.equal(y1, y2))
print("after: deterministic =", torch.backends.cudnn.deterministic)
"""),
]

NOTEBOOKS["05_amp_gradscaler"] = [
    md("""
# 05 · Automatic mixed precision with GradScaler

`torch.autocast` runs matmuls and convolutions in float16 (or bfloat16) where that is safe and keeps
reductions and losses in float32. float16 gradients can underflow to zero, so `GradScaler` multiplies the
loss by a large scale before `backward()`, unscales the gradients before the optimizer step, skips steps
whose gradients overflowed, and adapts the scale.

The tutorials write `torch.cuda.amp.autocast()` and `torch.cuda.amp.GradScaler()`; those spellings work
(with PyTorch's deprecation warning). The current ones are `torch.autocast("cuda")` and
`torch.amp.GradScaler("cuda")`. On the CPU this notebook uses bfloat16 autocast, which needs no scaler, and
disables the scaler (a disabled scaler passes everything through, so the loop is the same code).
"""),
    code(INSTALL),
    code(IMPORTS),
    code(SIMPLE_NN),
    code("""
import minitorch.optim as optim

use_cuda = device.type == "cuda"
amp_dtype = torch.float16 if use_cuda else torch.bfloat16

torch.manual_seed(0)
model = SimpleNN().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.5)
scaler = torch.amp.GradScaler("cuda", enabled=use_cuda)

inputs = torch.randn(256, 3, device=device)
labels = (inputs[:, 0] > 0).long()

with torch.autocast(device.type, dtype=amp_dtype):
    outputs = model(inputs)
    loss = criterion(outputs, labels)
print("inside autocast: linear output", outputs.dtype, "| loss", loss.dtype)
print("the parameters stay float32:", next(model.parameters()).dtype)
"""),
    code("""
losses = []
for step in range(150):
    optimizer.zero_grad()
    with torch.autocast(device.type, dtype=amp_dtype):
        outputs = model(inputs)
        loss = criterion(outputs, labels)
    scaler.scale(loss).backward()   # gradients of loss * scale
    scaler.step(optimizer)          # unscales; skips the step if any gradient is inf/NaN
    scaler.update()                 # grows or backs off the scale
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}; scale now {scaler.get_scale() if use_cuda else 'n/a (disabled)'}")
assert losses[-1] < 0.5 * losses[0]
"""),
    code("""
import matplotlib.pyplot as plt

plt.figure(figsize=(6, 3.5))
plt.plot(losses)
plt.xlabel("step")
plt.ylabel("loss")
plt.title(f"mixed precision ({amp_dtype}) on {device}")
plt.show()
"""),
    md("""
## What the scaler does on overflow

A deliberately huge loss overflows float16 gradients: the scaler skips that step (the weights do not change)
and halves its scale.
"""),
    code("""
if use_cuda:
    s = torch.amp.GradScaler("cuda", init_scale=2.0**16)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(inputs).float().sum() * 1e30
    s.scale(loss).backward()
    s.step(optimizer)
    s.update()
    unchanged = all(torch.equal(b, p) for b, p in zip(before, model.parameters()))
    print("step skipped:", unchanged, "| scale 65536 ->", s.get_scale())
else:
    print("skipped: float16 loss scaling needs a GPU")
"""),
    md("""
## The tutorials' spelling
"""),
    code("""
import warnings

if use_cuda:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        legacy_scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            print("torch.cuda.amp.autocast ->", model(inputs).dtype)
else:
    print("skipped: torch.cuda.amp needs a GPU")
"""),
]

NOTEBOOKS["06_memory_statistics"] = [
    md("""
# 06 · GPU memory statistics

minitorch, like PyTorch, allocates GPU memory through a **caching allocator**: freed blocks are kept for reuse
instead of returned to the driver, because `cudaMalloc`/`cudaFree` are slow and synchronize. Two numbers
follow from that:

* `torch.cuda.memory_allocated()`: bytes held by live tensors;
* `torch.cuda.memory_reserved()`: bytes the allocator holds from the driver (live tensors plus the cache).

`nvidia-smi` shows roughly the reserved amount plus the CUDA context. The statistics read 0 until CUDA is used,
and on a machine without a GPU this notebook prints that and skips.
"""),
    code(INSTALL),
    code(IMPORTS),
    code("""
MiB = 2**20


def report(label):
    print(f"{label:<28} allocated {torch.cuda.memory_allocated() / MiB:8.1f} MiB   "
          f"reserved {torch.cuda.memory_reserved() / MiB:8.1f} MiB")


if not torch.cuda.is_available():
    print("no GPU: memory statistics stay at", torch.cuda.memory_allocated(), "bytes; the GPU cells skip")
"""),
    code("""
if torch.cuda.is_available():
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    report("start")
    x = torch.randn(1024, 1024, 64, device="cuda")      # 256 MiB of float32
    report("after a 256 MiB tensor")
    y = x * 2                                            # another 256 MiB
    report("after y = x * 2")
    del x, y
    report("after del x, y")                             # allocated drops, reserved stays: the cache
    torch.cuda.empty_cache()
    report("after empty_cache()")                        # the cache goes back to the driver
    print(f"peak allocated: {torch.cuda.max_memory_allocated() / MiB:.1f} MiB")
else:
    print("skipped: needs a GPU")
"""),
    md("""
## Reuse: the cache at work

Freeing and reallocating the same size does not grow reserved memory.
"""),
    code("""
if torch.cuda.is_available():
    for i in range(3):
        t = torch.empty(64 * MiB // 4, device="cuda")
        report(f"iteration {i}")
        del t
else:
    print("skipped: needs a GPU")
"""),
    md("""
## Inference without a graph

Inside `torch.no_grad()` intermediate activations are not kept for backward, which lowers the peak.
"""),
    code("""
import minitorch.nn as nn

if torch.cuda.is_available():
    model = nn.Sequential(*[nn.Linear(2048, 2048) for _ in range(4)]).cuda()
    inp = torch.randn(2048, 2048, device="cuda", requires_grad=True)
    for grad_mode in (True, False):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        with torch.set_grad_enabled(grad_mode):
            out = model(inp)
        peak = torch.cuda.max_memory_allocated() - base
        print(f"grad enabled={grad_mode!s:5}  extra peak {peak / MiB:7.1f} MiB")
        del out
    del model, inp
else:
    print("skipped: needs a GPU")
"""),
    md("""
## The full picture, and running out

`memory_stats()` holds every counter (PyTorch's key names); `memory_summary()` formats the main ones;
`mem_get_info()` asks the driver. An allocation that cannot be met raises `torch.cuda.OutOfMemoryError`
(a `RuntimeError`), after the allocator has freed its cache and retried.
"""),
    code("""
if torch.cuda.is_available():
    print(torch.cuda.memory_summary())
    free, total = torch.cuda.mem_get_info()
    print(f"driver: {free / 2**30:.1f} GiB free of {total / 2**30:.1f} GiB")
    stats = torch.cuda.memory_stats()
    print(len(stats), "counters, e.g.", {k: stats[k] for k in list(stats)[:3]})
    try:
        huge = torch.empty(int(total), dtype=torch.float32, device="cuda")   # total floats: 4x the GPU
    except torch.cuda.OutOfMemoryError as e:
        print("OutOfMemoryError:", str(e).splitlines()[0][:120])
    report("after the failed allocation")
else:
    print("skipped: needs a GPU")
"""),
]

NOTEBOOKS["07_dataloader"] = [
    md("""
# 07 · DataLoader with workers and pinned memory

`torch.utils.data.DataLoader` batches a `Dataset`. Two options matter for feeding a GPU:

* `num_workers > 0` loads and collates batches in worker processes, in parallel with training. It helps when
  reading a sample is slow (disk, decoding, augmentation); batches come out in the same order as with
  `num_workers=0`.
* `pin_memory=True` puts each batch in page-locked host memory, which the GPU can copy from asynchronously:
  `batch.to("cuda", non_blocking=True)` then overlaps the copy with compute. Without a GPU, pinning is
  unavailable and the loader warns and returns ordinary batches, so this notebook only asks for it on a GPU.
"""),
    code(INSTALL),
    code(IMPORTS),
    code("""
import time

from minitorch.utils.data import DataLoader, Dataset, TensorDataset

features = torch.randn(1000, 3)
targets = (features[:, 0] > 0).long()
dataset = TensorDataset(features, targets)
loader = DataLoader(dataset, batch_size=64, shuffle=True)
xb, yb = next(iter(loader))
print(len(dataset), "samples,", len(loader), "batches of", tuple(xb.shape), tuple(yb.shape))
"""),
    md("""
## A slow dataset: where workers help

Each sample takes 2 ms to "read". With `num_workers=0` the main process does all the reading; with workers
the reads overlap. (Workers are separate processes; on Linux they are forked, so classes defined in the
notebook work. Under the `spawn` start method, e.g. on macOS/Windows, define the dataset in a module.)
"""),
    code("""
class SlowDataset(Dataset):
    def __init__(self, n, delay=0.002):
        self.x = torch.randn(n, 3)
        self.delay = delay

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(self.delay)        # stands in for disk reads / decoding
        return self.x[i], int(self.x[i, 0] > 0)


slow = SlowDataset(400)
for workers in (0, 2):
    t0 = time.perf_counter()
    n = sum(len(xb) for xb, _ in DataLoader(slow, batch_size=32, num_workers=workers))
    print(f"num_workers={workers}: {n} samples in {time.perf_counter() - t0:.2f} s")
"""),
    md("""
The same seed gives the same shuffled batches with and without workers.
"""),
    code("""
def first_labels(workers):
    torch.manual_seed(0)   # the sampler draws from the global generator, in the main process
    return next(iter(DataLoader(dataset, batch_size=8, shuffle=True, num_workers=workers)))[1].tolist()


print(first_labels(0))
print(first_labels(2))
assert first_labels(0) == first_labels(2)
"""),
    md("""
## Pinned memory and non-blocking copies
"""),
    code("""
use_cuda = torch.cuda.is_available()
loader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=2, pin_memory=use_cuda)
for xb, yb in loader:
    print("batch pinned:", xb.is_pinned())
    xb = xb.to(device, non_blocking=use_cuda)
    yb = yb.to(device, non_blocking=use_cuda)
    print("on", xb.device)
    break
if not use_cuda:
    print("(no GPU: pin_memory left off, batches stay on the CPU)")
"""),
    md("""
## A training loop fed by the loader
"""),
    code("""
import minitorch.nn as nn
import minitorch.optim as optim

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
optimizer = optim.SGD(model.parameters(), lr=0.2)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=2, pin_memory=use_cuda)
for epoch in range(5):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device, non_blocking=use_cuda), yb.to(device, non_blocking=use_cuda)
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    print(f"epoch {epoch}  mean loss {total / len(dataset):.4f}")
"""),
]

NOTEBOOKS["08_data_parallel"] = [
    md("""
# 08 · DataParallel and DistributedDataParallel

Two ways to use several GPUs:

* `nn.DataParallel(model)`: one process; each forward splits the batch across the GPUs, runs a replica of the
  model on each and gathers the outputs on the first. Easy, but limited by one Python process.
* `nn.parallel.DistributedDataParallel` (DDP): one process per GPU, gradients averaged with an all-reduce
  during backward. PyTorch recommends it even on one machine.

In minitorch, `DataParallel` wraps any model: with no GPU or one GPU it runs the module as is (exactly what
PyTorch does in those cases), so the tutorials' code runs everywhere; with several GPUs it splits the batch,
runs one replica per GPU in threads and gathers the outputs. As a minitorch extension, `device_ids` may also
name the CPU or repeat a device, which shows the replica machinery at work on any machine (below).
"""),
    code(INSTALL),
    code(IMPORTS),
    code(SIMPLE_NN),
    md("""
The tutorials' pattern: wrap when there is more than one GPU. Wrapping always is fine too; the wrapped model
is `model.module`, and its `state_dict` keys gain a `module.` prefix.
"""),
    code("""
model = SimpleNN()
print("GPUs:", torch.cuda.device_count())
if torch.cuda.device_count() > 1:
    print("Let's use", torch.cuda.device_count(), "GPUs!")
    model = nn.DataParallel(model)
model = model.to(device)
print(model(torch.randn(4, 3, device=device)).shape)

# two replicas on the same device: the batch is split, each half runs in its own thread, outputs are gathered
replicas = nn.DataParallel(SimpleNN().to(device), device_ids=[device, device])
x = torch.randn(6, 3, device=device)
print("two replicas:", torch.allclose(replicas(x), replicas.module(x), atol=1e-6))

dp = nn.DataParallel(SimpleNN()).to(device)
print(type(dp.module).__name__, list(dp.state_dict())[:2])
"""),
    code("""
import minitorch.optim as optim

torch.manual_seed(0)
dp = nn.DataParallel(SimpleNN()).to(device)
optimizer = optim.SGD(dp.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(256, 3, device=device)
labels = (inputs[:, 0] > 0).long()
for step in range(100):
    optimizer.zero_grad()
    loss = criterion(dp(inputs), labels)
    loss.backward()
    optimizer.step()
print(f"DataParallel training on {device}: final loss {loss.item():.4f}")
"""),
    md("""
## DistributedDataParallel

DDP arrives with minitorch's distributed issue (issue 7: process groups over NCCL and Gloo, `torchrun`-style
launching). Once it lands, the tutorials' script runs unchanged, launched with one process per GPU:

```python
import minitorch as torch
import minitorch.distributed as dist
import minitorch.nn as nn
from minitorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")            # "gloo" on CPU-only machines
rank = dist.get_rank()
torch.cuda.set_device(rank)
model = DDP(SimpleNN().cuda(rank), device_ids=[rank])
# ... the usual training loop; each process sees its own shard (DistributedSampler) ...
dist.destroy_process_group()
```

It is not run here: a notebook is a single process, and DDP needs a launcher that starts one per GPU.
"""),
]


def main():
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        # Stable cell ids keep regenerated notebooks byte-identical when their sources do not change.
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{name[:2]}-{i:02d}"
        nbformat.validate(nb)
        with open(os.path.join(HERE, name + ".ipynb"), "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
        print("wrote", name + ".ipynb")


if __name__ == "__main__":
    main()
