# Follows PyTorch's functorch notebook "AOT Autograd - How to use and optimize?" (functorch/notebooks/
# aot_autograd_optimizations.ipynb): aot_function with a compiler that prints the forward and backward graphs,
# ts_compile as the backend compiler, the min_cut_rematerialization_partition partitioner, and an eager-vs-AOT
# benchmark. Adapted: the benchmark's inputs are 256x512 instead of 1024x2048 with 3 warm-up and 10 timed runs
# (the CPU of the test machine) and it compiles its own functions for them (PyTorch 2.x's aot_function keeps its
# first compilation for every later shape, so the notebook's 2x4 graphs fail on the large inputs), the notebook's `assert torch.allclose(ref, res)` after `.backward()` (res is None
# there) compares the outputs instead, and the printed graphs are checked for their inputs. Our graphs hold our
# ops, not ATen's, and our backward graph recomputes the forward (see docs/architecture.md, "Decisions").
import statistics
import time
import warnings

import torch
from functorch.compile import aot_function, min_cut_rematerialization_partition, ts_compile

# torch.jit.script (inside ts_compile) warns FutureWarning in PyTorch 2.x; functorch's APIs do too
warnings.simplefilter("ignore", FutureWarning)


def fn(a, b, c, d):
    x = a + b + c + d
    return x.cos().cos()


# Test that it works
a, b, c, d = [torch.randn(2, 4, requires_grad=True) for _ in range(4)]
ref = fn(a, b, c, d)
loss = ref.sum()
loss.backward()

graphs = []


# The compiler_fn is called after the forward and backward graphs are extracted.
# Here, we just print the code in the compiler_fn. Return of this function is a callable.
def compiler_fn(fx_module: torch.fx.GraphModule, _):
    print(fx_module.code)
    graphs.append([n.name for n in fx_module.graph.nodes if n.op == "placeholder"])
    return fx_module


# Pass on the compiler_fn to the aot_function API
aot_print_fn = aot_function(fn, fw_compiler=compiler_fn, bw_compiler=compiler_fn)

# Run the aot_print_fn once to trigger the compilation and print the graphs
res = aot_print_fn(a, b, c, d)
assert torch.allclose(ref, res)
res.sum().backward()
assert graphs[0] == ["primals_1", "primals_2", "primals_3", "primals_4"], graphs
assert graphs[1][-1] == "tangents_1", graphs

# Lets compile the forward and backward through ts_compile.
aot_nnc_fn = aot_function(fn, fw_compiler=ts_compile, bw_compiler=ts_compile)

# Correctness checking. Lets clone the input so that we can check grads.
cloned_inputs = [x.clone().detach().requires_grad_(True) for x in (a, b, c, d)]
cloned_a, cloned_b, cloned_c, cloned_d = cloned_inputs

a.grad = b.grad = c.grad = d.grad = None
fn(a, b, c, d).sum().backward()
res = aot_nnc_fn(*cloned_inputs)
loss = res.sum()
loss.backward()
assert torch.allclose(ref, res)
assert torch.allclose(a.grad, cloned_a.grad)
assert torch.allclose(b.grad, cloned_b.grad)
assert torch.allclose(c.grad, cloned_c.grad)
assert torch.allclose(d.grad, cloned_d.grad)


# Lets write a function to benchmark the forward and backward pass
def bench(fn, args, prefix):
    warmup = 3
    iterations = 10

    for _ in range(warmup):
        ref = fn(*args)
        ref.sum().backward()

    fw_latencies = []
    bw_latencies = []
    for _ in range(iterations):
        for arg in args:
            arg.grad = None

        fw_begin = time.perf_counter()
        ref = fn(*args)
        fw_end = time.perf_counter()

        loss = ref.sum()

        bw_begin = time.perf_counter()
        loss.backward()
        bw_end = time.perf_counter()

        fw_latencies.append(fw_end - fw_begin)
        bw_latencies.append(bw_end - bw_begin)

    avg_fw_latency = statistics.mean(fw_latencies) * 10**6
    avg_bw_latency = statistics.mean(bw_latencies) * 10**6
    print(prefix, "Fwd = " + str(avg_fw_latency) + " us", "Bwd = " + str(avg_bw_latency) + " us", sep=", ")


large_inputs = [torch.randn(256, 512, requires_grad=True) for _ in range(4)]

# Benchmark the Eager and AOT Autograd functions
bench(fn, large_inputs, "Eager")
bench(aot_function(fn, fw_compiler=ts_compile, bw_compiler=ts_compile), large_inputs, "AOT")

# Lets set up the partitioner. Also set the fwd and bwd compilers to the printer function that we used earlier.
# This will show us how the recomputation has modified the graph.
aot_fn = aot_function(
    fn, fw_compiler=compiler_fn, bw_compiler=compiler_fn, partition_fn=min_cut_rematerialization_partition
)
res = aot_fn(a, b, c, d).sum().backward()

# Lets set up the partitioner and NNC compiler.
aot_recompute_nnc_fn = aot_function(
    fn, fw_compiler=ts_compile, bw_compiler=ts_compile, partition_fn=min_cut_rematerialization_partition
)

# Correctness checking. Lets clone the input so that we can check grads.
cloned_inputs = [x.clone().detach().requires_grad_(True) for x in (a, b, c, d)]
cloned_a, cloned_b, cloned_c, cloned_d = cloned_inputs

a.grad = b.grad = c.grad = d.grad = None
fn(a, b, c, d).sum().backward()
res = aot_recompute_nnc_fn(*cloned_inputs)
loss = res.sum()
loss.backward()
assert torch.allclose(ref, res)
assert torch.allclose(a.grad, cloned_a.grad)
assert torch.allclose(b.grad, cloned_b.grad)
assert torch.allclose(c.grad, cloned_c.grad)
assert torch.allclose(d.grad, cloned_d.grad)

bench(fn, large_inputs, "Eager")
bench(aot_function(fn, fw_compiler=ts_compile, bw_compiler=ts_compile), large_inputs, "AOT")
aot_recompute_large = aot_function(
    fn, fw_compiler=ts_compile, bw_compiler=ts_compile, partition_fn=min_cut_rematerialization_partition
)
bench(aot_recompute_large, large_inputs, "AOT_Recomp")
print("aot autograd optimizations: ok")
