"""Real programs (tests/integration/programs/): scripts adapted from PyTorch's tutorials and pytorch/examples, each run in
a subprocess with `import torch` resolving to minitorch (tests/integration/programs/as_torch.py), unchanged otherwise.
Each script asserts its own outcome (loss falls, accuracy above chance, shapes); a failure shows its output. Those in
SAME_OUTPUT also print what they print under PyTorch (MINITORCH_ORACLE_PYTHON runs them there)."""

import difflib
import importlib.util
import os
import re
import subprocess
import sys

import pytest
from utils import NO_GLOO

import minitorch
import minitorch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
# the minitorch under test (the installed package, or the source tree with PYTHONPATH=python), found from any cwd
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))


def _has(path):
    obj = minitorch
    for part in path.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def _works(fn):
    try:
        fn()
        return True
    except Exception:  # noqa: BLE001 - any failure means the API is not there yet
        return False


def _out_kwarg():
    a = minitorch.ones(2, 2)
    out = minitorch.zeros(2, 2)
    minitorch.mul(a, a, out=out)
    minitorch.matmul(a, a, out=out)
    assert out.sum().item() == 8


def _range_index():
    x = minitorch.arange(6).reshape(2, 3)
    assert x[range(2), minitorch.tensor([0, 2])].tolist() == [0, 5]


PROBES = {
    "out= (helper ops14)": lambda: _works(_out_kwarg),
    "indexing with range (helper ops14)": lambda: _works(_range_index),
    NO_GLOO: dist.is_gloo_available,
    "tensorboard (the optional extra)": lambda: importlib.util.find_spec("tensorboard") is not None,
    "Module.to('meta') (issue 31)": lambda: _works(lambda: minitorch.nn.Linear(1, 1).to("meta")),
}


def _available(need):
    if need in PROBES:
        return PROBES[need]()
    return _has(need.split(" ")[0])


# program -> APIs it needs that other helpers are adding (the skip lifts itself once they are merged)
NEEDS = {
    "tensor_tutorial.py": ["out= (helper ops14)"],
    "nn_tutorial.py": ["indexing with range (helper ops14)"],
    "gpt.py": ["tril (helper ops14)", "topk (helper ops14)", "multinomial (helper ops14)"],
    "word_language_model_lstm.py": ["nn.LSTM (helper attn)"],
    "word_language_model_transformer.py": ["nn.Transformer (helper attn)", "tril (helper ops14)"],
    "time_sequence_prediction.py": ["nn.LSTMCell (helper attn)"],
    "char_rnn_classification.py": ["nn.RNN (helper attn)", "nn.GRU (helper attn)", "topk (helper ops14)"],
    "ddp_tutorial.py": [NO_GLOO],
    "tensorboard_recipe.py": ["tensorboard (the optional extra)"],
    "legacy_two_layer_net.py": ["FloatTensor (exported by minitorch/__init__.py, issue 33)"],
    "gcn.py": ["sparse_coo_tensor (exported by minitorch/__init__.py, issue 33)"],
    "model_ensembling.py": [
        "vmap (torch.vmap, exported by minitorch/__init__.py, issue 31)",
        "Module.to('meta') (issue 31)",
    ],
}

ALL = sorted(
    f for f in os.listdir(PROGRAMS) if f.endswith(".py") and not f.startswith("_") and f != "as_torch.py"
)


def _params():
    for name in ALL:
        missing = [n for n in NEEDS.get(name, []) if not _available(n)]
        reason = NO_GLOO if NO_GLOO in missing else "needs " + ", ".join(missing)
        marks = [pytest.mark.skip(reason=reason)] if missing else []
        yield pytest.param(name, marks=marks, id=name[:-3])


def test_enough_programs():
    assert len(ALL) >= 15, ALL


# programs that print what PyTorch prints for them, compared line by line with PyTorch's run: name -> (a pattern
# of lines left out (timings) or None, whether the printed numbers come from the random generator). Our Philox
# stream is not PyTorch's Mersenne Twister, so such numbers are blanked and the rest compared: the text, the
# layout, which elements print as nan, inf or masked (--), the order of the lines.
SAME_OUTPUT = {
    "autograd_saved_tensors_hooks.py": (None, True),
    "maskedtensor_advanced_semantics.py": (None, False),
    "maskedtensor_overview.py": (None, True),
    "reasoning_about_shapes.py": (r"^Time taken", False),
    "torchscript_freezing.py": (r"time|Inference", True),
}
_NUMBER = re.compile(r"\s*-?\d+\.\d*(?:e[+-]?\d+)?")


def _run(python, name, real_torch=False):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("MT_REAL_TORCH", None)
    if real_torch:
        env["MT_REAL_TORCH"] = "1"
    return subprocess.run(
        [python, os.path.join(PROGRAMS, "as_torch.py"), os.path.join(PROGRAMS, name)],
        cwd=PROGRAMS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("name", list(_params()))
def test_program(name):
    proc = _run(sys.executable, name)
    out = proc.stdout[-3000:] + proc.stderr[-6000:]
    assert proc.returncode == 0, out
    assert ": ok" in proc.stdout, out


@pytest.mark.parametrize("name", sorted(SAME_OUTPUT), ids=[n[:-3] for n in sorted(SAME_OUTPUT)])
def test_program_prints_what_pytorch_prints(name):
    oracle = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not oracle:
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    pattern, random_values = SAME_OUTPUT[name]
    skip = re.compile(pattern) if pattern else None

    def lines(proc):
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
        kept = [ln for ln in proc.stdout.splitlines() if not (skip and skip.search(ln))]
        return [_NUMBER.sub(" #", ln) for ln in kept] if random_values else kept

    theirs = lines(_run(oracle, name, real_torch=True))
    ours = lines(_run(sys.executable, name))
    assert ours == theirs, "\n".join(difflib.unified_diff(theirs, ours, "PyTorch", "minitorch", lineterm=""))
