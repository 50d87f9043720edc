#!/usr/bin/env bash
# Checks that minitorch's CUDA host code compiles against a CUDA 12 toolkit taken from NVIDIA's PyPI wheels
# (what Colab and most clusters run), without touching the machine's own CUDA 13 toolkit.
#
# usage: scripts/check_cuda12.sh [--quick] [BUILD_DIR]
#   BUILD_DIR  a configured CUDA build (default build/dev; configured here if missing) whose
#              compile_commands.json gives each file's exact flags; the CUDA include paths are swapped
#   --quick    only the CUDA runtime + CCCL wheels (~15 MB, for CI) and only the files that need no
#              cuBLAS/cuDNN/NCCL header; without it also cuBLAS, cuDNN and NCCL (~1.5 GB download, cached)
# env: CU12_VENV (default ~/.cache/minitorch-cu12/venv); the newest cu12 wheels are taken
#
# What NVIDIA's CUDA 12 wheels can and cannot do: nvidia-cuda-nvcc-cu12 ships ptxas, libnvvm and the crt
# headers but not the nvcc driver, cicc or cudafe++, so no .cu file can be compiled from wheels alone (for
# CUDA 12 the kernels need a toolkit: Colab's /usr/local/cuda, a cluster module, NVIDIA's apt/conda
# packages). Every C++ file that uses the CUDA runtime, cuBLAS, cuDNN or NCCL is compiled here against the
# wheels' headers with the host g++; the script fails if one does not compile. If a future nvcc wheel ships
# the driver, the script says so and compiles one kernel file with it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
build=${1:-build/dev}
venv=${CU12_VENV:-$HOME/.cache/minitorch-cu12/venv}
py=${PYTHON:-python3}

wheels=(nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12 nvidia-cuda-nvcc-cu12)
[ $quick = 1 ] || wheels+=(nvidia-cublas-cu12 nvidia-cudnn-cu12 nvidia-nccl-cu12)
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
echo "== CUDA 12 wheels into $venv: ${wheels[*]}"
"$venv/bin/python" -m pip install -q "${wheels[@]}" 2>&1 | grep -v "as the 'root' user" || true
"$venv/bin/python" -m pip list 2>/dev/null | grep -i "^nvidia-" || true
nv=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/nvidia

echo "== what the nvcc wheel contains"
find "$nv/cuda_nvcc" -path '*/include' -prune -o -type f -print | sed "s|$nv/||"
gcc_max=$(grep -oE "__GNUC__ > [0-9]+" "$nv/cuda_nvcc/include/crt/host_config.h" | head -1 | grep -oE "[0-9]+$" || true)
echo "host compiler: $(g++ --version | head -1); this CUDA 12 accepts GCC up to ${gcc_max:-?}"

if [ ! -f "$build/compile_commands.json" ]; then
  echo "== configuring $build (CMake only) for its compile commands"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMINITORCH_DEV_INPLACE=ON -DMINITORCH_CUDA=ON \
    -DPython_EXECUTABLE="$(command -v "$py")" \
    -Dpybind11_DIR="$("$py" -c 'import pybind11; print(pybind11.get_cmake_dir())')" >/dev/null
fi

echo "== compiling the CUDA-using C++ sources against CUDA 12 headers ($([ $quick = 1 ] && echo quick || echo full))"
"$py" - "$build/compile_commands.json" "$nv" "$quick" "$root" <<'EOF'
import json, os, re, shlex, subprocess, sys, time

db, nv, quick, root = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
# every CUDA 12 header directory the wheels provide; crt/ headers come with the nvcc wheel
inc = [f"{nv}/{d}/include" for d in ("cuda_runtime", "cuda_cccl", "cuda_nvcc", "cublas", "cudnn", "nccl")]
inc = [d for d in inc if os.path.isdir(d)]
cuda_re = re.compile(r"#include\s*[<\"](cuda|cublas|cudnn|nccl|cuda/)")
heavy_re = re.compile(r"#include\s*[<\"](cublas|cudnn|nccl|cuda/CUBLASCheck|cuda/CUDNNUtils)")
entries = json.load(open(db))
todo, skipped = [], []
for e in entries:
    src = e["file"]
    if not src.endswith(".cpp"):
        continue
    text = open(src, encoding="utf-8").read()
    if not cuda_re.search(text):
        continue
    if quick and heavy_re.search(text):
        skipped.append(os.path.relpath(src, root))
        continue
    todo.append(e)
failed = []
for e in todo:
    args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    out, i = [], 0
    while i < len(args):  # drop -o X, swap the toolkit's include dirs for the wheels'
        a = args[i]
        if a == "-o":
            i += 2
            continue
        if a in ("-isystem", "-I") and i + 1 < len(args) and "cuda" in args[i + 1] and "/csrc" not in args[i + 1]:
            i += 2
            continue
        if a.startswith("-I") and "cuda" in a and "/csrc" not in a:
            i += 1
            continue
        out.append(a)
        i += 1
    out = [x if not x.startswith("-DMINITORCH_CUDA_VERSION") else '-DMINITORCH_CUDA_VERSION="12"' for x in out]
    out += ["-fsyntax-only"] + [f"-isystem{d}" for d in inc]
    t0 = time.time()
    r = subprocess.run(out, cwd=e["directory"], capture_output=True, text=True)
    name = os.path.relpath(e["file"], root)
    print(f"  {'ok  ' if r.returncode == 0 else 'FAIL'} {name} ({time.time() - t0:.1f} s)", flush=True)
    if r.returncode:
        failed.append(name)
        print(r.stderr[-3000:])
for s in skipped:
    print(f"  skip {s} (needs cuBLAS/cuDNN/NCCL headers: run without --quick)")
if not todo:
    sys.exit("no CUDA-using C++ source found: is the build directory configured with CUDA?")
sys.exit(f"{len(failed)} file(s) failed against CUDA 12: {failed}" if failed else 0)
EOF

if [ -x "$nv/cuda_nvcc/bin/nvcc" ]; then
  echo "== the nvcc wheel has a driver: compiling one kernel file with it"
  "$nv/cuda_nvcc/bin/nvcc" -std=c++17 -arch=sm_75 --expt-relaxed-constexpr -Icsrc -c csrc/kernels/cuda/fill.cu \
    -o /tmp/minitorch_cu12_fill.o
else
  echo "== no nvcc driver in nvidia-cuda-nvcc-cu12: .cu files need a CUDA 12 toolkit (not checked here)"
fi
echo "check_cuda12: ok"
