"""Real programs (tests/integration/programs/): scripts adapted from PyTorch's tutorials and pytorch/examples, each run in
a subprocess with `import torch` resolving to minitorch (tests/integration/programs/as_torch.py), unchanged otherwise.
Each script asserts its own outcome (loss falls, accuracy above chance, shapes); a failure shows its output."""

import importlib.util
import os
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


def _imag_write_backward():
    w = minitorch.randn(4, requires_grad=True)
    k = minitorch.fft.rfft(w)
    k.imag *= -1  # fft_conv.py's conjugation in place: its backward read a real gradient as complex
    minitorch.autograd.grad(k.abs().sum(), w)


PROBES = {
    "out= (helper ops14)": lambda: _works(_out_kwarg),
    "indexing with range (helper ops14)": lambda: _works(_range_index),
    NO_GLOO: dist.is_gloo_available,
    "tensorboard (the optional extra)": lambda: importlib.util.find_spec("tensorboard") is not None,
    "Module.to('meta') (issue 31)": lambda: _works(lambda: minitorch.nn.Linear(1, 1).to("meta")),
    "backward through an in-place write to a complex tensor's .imag (issue 31)": lambda: _works(
        _imag_write_backward
    ),
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
    "fft_conv.py": ["backward through an in-place write to a complex tensor's .imag (issue 31)"],
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


@pytest.mark.parametrize("name", list(_params()))
def test_program(name):
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("MT_REAL_TORCH", None)
    proc = subprocess.run(
        [sys.executable, os.path.join(PROGRAMS, "as_torch.py"), os.path.join(PROGRAMS, name)],
        cwd=PROGRAMS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = proc.stdout[-3000:] + proc.stderr[-6000:]
    assert proc.returncode == 0, out
    assert ": ok" in proc.stdout, out
