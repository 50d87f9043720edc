"""Run a script written for PyTorch against minitorch: `import torch...` resolves to `minitorch...`.

usage: python tests/integration/programs/as_torch.py SCRIPT [ARGS...]
The alias is the one /work/shared/clients uses (torch_shim/torch/__init__.py); PYTHONPATH carries it to
child processes (DataLoader workers, mp.spawn). With MT_REAL_TORCH=1 nothing is aliased, so the same script
runs on real PyTorch (to check the script itself).
"""

import os
import runpy
import sys

if os.environ.get("MT_REAL_TORCH") != "1":
    shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_shim")
    sys.path.insert(0, shim)
    os.environ["PYTHONPATH"] = shim + os.pathsep + os.environ.get("PYTHONPATH", "")
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
