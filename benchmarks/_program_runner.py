"""One program of tests/integration/programs timed under one library, for bench_programs.py.

usage: python benchmarks/_program_runner.py minitorch|torch SCRIPT OUT.json wall|cpu
Times `import torch`, the whole run, and every optimizer step (the time between the ends of successive
`Optimizer.step` calls: one training iteration with its data, forward, loss, backward and update) on the given
clock (cpu: this process's CPU time, which a loaded machine disturbs less than wall time, and which leaves out
child processes such as DataLoader workers), written as JSON to OUT.json. With `minitorch`, `import torch`
resolves to minitorch through the programs' own shim.
"""

import json
import os
import pkgutil  # noqa: F401  (runpy.run_path imports it on first use: PyTorch's import has it already, ours not)
import runpy
import sys
import time


def _watch_steps(torch, stamps, clock):
    """Records the end of every optimizer step: PyTorch's global step hook where the library has it, else a
    wrapper around the step of each optimizer class torch.optim exports."""
    optimizer = sys.modules.get("torch.optim.optimizer") or torch.optim.optimizer
    register = getattr(optimizer, "register_optimizer_step_post_hook", None)
    if register is not None:
        register(lambda *_: stamps.append(clock()))
        return
    for name in dir(torch.optim):
        cls = getattr(torch.optim, name)
        if not (isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer)) or "step" not in vars(cls):
            continue

        def wrapped(self, *args, _step=cls.step, **kwargs):
            result = _step(self, *args, **kwargs)
            stamps.append(clock())
            return result

        cls.step = wrapped


def main():
    lib, script, out, which = sys.argv[1:5]
    clock = time.process_time if which == "cpu" else time.perf_counter
    programs = os.path.dirname(os.path.abspath(script))
    if lib == "minitorch":
        shim = os.path.join(programs, "torch_shim")
        sys.path.insert(0, shim)
        os.environ["PYTHONPATH"] = shim + os.pathsep + os.environ.get("PYTHONPATH", "")
    t0 = clock()
    import torch
    import torch.optim

    t1 = clock()
    stamps = []
    _watch_steps(torch, stamps, clock)
    sys.argv = [script]
    sys.path.insert(0, programs)
    os.chdir(programs)
    runpy.run_path(script, run_name="__main__")
    t2 = clock()
    with open(out, "w") as f:
        json.dump({"import_s": t1 - t0, "run_s": t2 - t1, "steps": stamps}, f)


if __name__ == "__main__":
    main()
