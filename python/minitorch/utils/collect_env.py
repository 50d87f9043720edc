"""What to paste into a bug report, as PyTorch's ``python -m torch.utils.collect_env``: versions, how this
minitorch was built (CUDA toolkit and architectures, cuDNN, NCCL, Gloo; the CPU vector path, SLEEF, oneDNN), the GPUs present and whether the
build has kernels for them, CPU threads and OpenBLAS, and the environment variables that change behaviour.

Never initializes CUDA (a GPU the build cannot run must still be reported, not raise): GPUs are listed with
``nvidia-smi`` and checked against the build's architecture list.

    python -m minitorch.utils.collect_env
"""

import os
import platform
import shutil
import subprocess
import sys

__all__ = ["get_env_info", "get_pretty_env_info", "main"]

_ENV_VARS = (
    "CUDAARCHS",
    "MINITORCH_CUDA_ARCH_LIST",
    "MINITORCH_CUDA",
    "MINITORCH_NO_CUDA_MEMORY_CACHING",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MINITORCH_CPU_CAPABILITY",
)


def _run(cmd):
    """stdout of cmd, or None when it is missing, fails or hangs."""
    if shutil.which(cmd[0]) is None:
        return None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _dist_version(name):
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _nvidia_wheels():
    from importlib import metadata

    found = set()
    for d in metadata.distributions():
        name = d.metadata["Name"] or ""
        if name.lower().startswith("nvidia-"):
            found.add(f"{name}=={d.version}")
    return sorted(found)


def _gpus(arch_check):
    """[(index, name, 'X.Y', driver, problem or None)] from nvidia-smi; [] without one."""
    out = _run(["nvidia-smi", "--query-gpu=index,name,compute_cap,driver_version", "--format=csv,noheader"])
    gpus = []
    for line in (out or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4:
            continue
        idx, name, cap, driver = parts
        problem = None
        if arch_check is not None and "." in cap:
            major, minor = (int(x) for x in cap.split(".")[:2])
            problem = arch_check(major, minor)
        gpus.append((idx, name, cap, driver, problem))
    return gpus


def get_env_info():
    """The facts as a dict (keys are stable; values are strings, lists or None)."""
    import minitorch
    from minitorch import _C

    info = {
        "minitorch_version": minitorch.__version__,
        "minitorch_path": os.path.dirname(minitorch.__file__),
        "python_version": f"{platform.python_version()} ({sys.executable})",
        "platform": platform.platform(),
        "numpy_version": _dist_version("numpy"),
        "torch_version": _dist_version("torch"),
        "built_with_cuda": minitorch.version.cuda,
        "cuda_archs": _C._cuda_arch_list or None,
        "cudnn_version": None,
        "nccl_available": None,
        "gloo_available": None,
        "cpu_capability": minitorch.backends.cpu.get_cpu_capability(),
        "sleef": _C._has_sleef(),
        "onednn": minitorch.backends.mkldnn.is_available(),
        "cpu_threads": minitorch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "openblas": None,
        "openblas_threads": None,
        "nvcc": None,
        "gpus": [],
        "cuda_available": None,
        "nvidia_wheels": _nvidia_wheels(),
        "env": {k: os.environ[k] for k in _ENV_VARS if k in os.environ},
    }
    try:
        info["cudnn_version"] = minitorch.backends.cudnn.version()
    except (RuntimeError, OSError) as e:  # a broken cuDNN install is what the report is for
        info["cudnn_version"] = f"error: {e}"
    from minitorch import distributed as dist

    info["nccl_available"] = dist.is_nccl_available()
    info["gloo_available"] = dist.is_gloo_available()
    try:
        import scipy_openblas32 as ob

        info["openblas"] = ob.get_openblas_config()
        info["openblas_threads"] = ob.dll.scipy_openblas_get_num_threads()
    except (ImportError, AttributeError, OSError):
        pass
    nvcc = _run(["nvcc", "--version"])
    if nvcc:
        release = [ln for ln in nvcc.splitlines() if "release" in ln]
        info["nvcc"] = (release or nvcc.splitlines())[-1].strip()
    check = None
    if minitorch.version.cuda is not None:

        def check(major, minor):
            return _C._cuda_arch_check(major, minor)

    info["gpus"] = _gpus(check)
    info["cuda_available"] = minitorch.cuda.is_available()  # a device count: no context is created
    return info


def get_pretty_env_info():
    """The facts as the text to paste into a bug report."""
    i = get_env_info()
    lines = [
        f"minitorch version: {i['minitorch_version']} ({i['minitorch_path']})",
        f"Python version: {i['python_version']}",
        f"OS: {i['platform']}",
        f"NumPy version: {i['numpy_version']}",
        f"PyTorch (if installed): {i['torch_version']}",
        "",
        f"Built with CUDA: {i['built_with_cuda']}",
        f"CUDA architectures compiled: {i['cuda_archs']}",
        f"cuDNN version: {i['cudnn_version']}",
        f"NCCL available: {i['nccl_available']}",
        f"Gloo available: {i['gloo_available']}",
        f"nvcc on PATH: {i['nvcc']}",
        f"NVIDIA wheels: {', '.join(i['nvidia_wheels']) or None}",
        "",
        f"CUDA available: {i['cuda_available']}",
    ]
    if not i["gpus"]:
        lines.append("GPUs (nvidia-smi): none found")
    for idx, name, cap, driver, problem in i["gpus"]:
        status = "no kernels in this build: " + problem if problem else "supported by this build"
        lines.append(f"GPU {idx}: {name}, compute capability {cap}, driver {driver}; {status}")
    lines += [
        "",
        f"CPU count: {i['cpu_count']}, minitorch threads: {i['cpu_threads']}",
        f"CPU capability: {i['cpu_capability']} (vector kernels; SLEEF linked: {i['sleef']})",
        f"oneDNN (CPU convolutions): {i['onednn']}",
        f"OpenBLAS: {i['openblas']}, threads: {i['openblas_threads']}",
        "Environment: " + (", ".join(f"{k}={v}" for k, v in i["env"].items()) or "(none of interest)"),
    ]
    return "\n".join(lines)


def main():
    """Prints the report (``python -m minitorch.utils.collect_env``)."""
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
