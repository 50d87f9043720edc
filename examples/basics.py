"""The tutorial's tensor basics, end to end: devices, moving tensors, NumPy, matmul timing, memory stats.

Runs on the GPU when one is present, else on the CPU. `python examples/basics.py`
"""

import time

import numpy as np

import minitorch as torch


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"minitorch {torch.__version__} (CUDA toolkit: {torch.version.cuda}); using device: {device}")

    x = torch.randn(5, 5)
    y = torch.randn(5, 5)
    z = (x.to(device) + y.to(device)).cpu()
    assert np.allclose(z.numpy(), x.numpy() + y.numpy())
    print("x + y on", device, "->", z.shape, z.dtype)

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    a[0, 0] = 100.0  # shared memory: the tensor sees it
    assert t[0, 0].item() == 100.0
    print("from_numpy shares memory:", t)

    for n in (256, 1024):
        m1, m2 = torch.randn(n, n), torch.randn(n, n)
        if hasattr(torch, "matmul"):
            torch.matmul(m1, m2)  # warm-up
            t0 = time.perf_counter()
            r = torch.matmul(m1.to(device), m2.to(device))
            if device.type == "cuda":
                torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            print(
                f"matmul {n}x{n} on {device}: {dt * 1e3:.2f} ms ({2 * n**3 / dt / 1e9:.1f} GFLOP/s)", r.shape
            )

    print("memory allocated:", torch.cuda.memory_allocated(), "reserved:", torch.cuda.memory_reserved())
    print("basics: ok")


if __name__ == "__main__":
    main()
