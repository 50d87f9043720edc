"""Differential fuzzer: the same random call sent to minitorch and to PyTorch, in two worker processes, and the
outcomes compared (issue 34). The oracle is real PyTorch, run by its own interpreter (MINITORCH_ORACLE_PYTHON,
else this one when it can import torch), so neither library's crash, hang or global state reaches the other.

Every name both libraries have (torch functions, Tensor methods and operators, nn.functional, special,
linalg, nn classes) is called with arguments drawn from a pool of argument patterns ("templates"); the
patterns each name accepts in PyTorch are learned once (`--calibrate`, stored in difffuzz_templates.json),
so most calls are valid and a fixed share is drawn from any pattern (mostly bad input). Compared: outcome
class, exception type (by the builtin class `except` would catch), result dtype, shape and values (tolerance
by dtype, nan/inf positions exactly), inputs mutated and how, and float64 gradients of every input.

    python tests/ops/difffuzz.py --calls 100000 --seed 7 --report /tmp/fz     # a long run, report in /tmp/fz
    python tests/ops/difffuzz.py --calibrate tests/ops/difffuzz_templates.json     # after PyTorch or the pool changes

The fixed-seed budget of the normal suite is tests/ops/test_difffuzz.py; the differences it accepts, with the
reason for each, are the table in docs/reliability.md ("Known differences")."""

import argparse
import hashlib
import json
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import time
from collections import Counter, defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES_FILE = os.path.join(HERE, "difffuzz_templates.json")

# ----------------------------------------------------------------------------------------------------------
# The surface: which names are called, and which are left out (global state, I/O, library internals).

SKIP_TORCH = {
    "compile",
    "load",
    "save",
    "from_file",
    "from_dlpack",
    "vmap",
    "cond",
    "export",
    "typename",
    "autocast",
    "no_grad",
    "enable_grad",
    "inference_mode",
    "set_grad_enabled",
    "is_grad_enabled",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "seed",
    "initial_seed",
    "manual_seed",
    "get_rng_state",
    "set_rng_state",
    "get_default_dtype",
    "get_default_device",
    "get_num_threads",
    "get_num_interop_threads",
    "is_inference_mode_enabled",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
    "default_generator",
    "empty",
    "empty_like",
    "empty_strided",
    "chunk_size",
    "Generator",
    "is_storage",
    "is_tensor",
    "get_device",
    "is_warn_always_enabled",
    "set_warn_always",
    "fork",
    "wait",
    "iinfo",
    "finfo",
    "device",
    "dtype",
    "Size",
    "Tensor",
    "sym_int",
    "sym_float",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_ite",
    "sym_sqrt",
    "sym_fresh_size",
    "sym_sum",
    "result_type",
    "promote_types",
    "can_cast",
}
SKIP_PREFIX = ("set_", "_", "cuda", "mps", "xpu", "is_autocast", "get_autocast", "autocast", "clear_autocast")
SKIP_METHOD = {
    "backward",
    "register_hook",
    "register_post_accumulate_grad_hook",
    "apply_",
    "map_",
    "map2_",
    "data_ptr",
    "const_data_ptr",
    "storage",
    "untyped_storage",
    "share_memory_",
    "pin_memory",
    "is_pinned",
    "cuda",
    "to_dlpack",
    "record_stream",
    "set_",
    "retain_grad",
    "new_empty",
    "new_empty_strided",
    "type",
    "is_shared",
    "storage_type",
    "get_device",
    "cpu",
    "to",
    "numpy",
    "tolist",
    "is_set_to",
    "dim_order",
    "element_size",
    "grad_fn",
    "module_load",
    "__reduce_ex__",
    "__deepcopy__",
    "__setstate__",
    "__reduce__",
    "__sizeof__",
    "__format__",
    "__repr__",
    "__str__",
    "__hash__",
    "__dir__",
    "__init__",
    "__new__",
    "__init_subclass__",
    "__subclasshook__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__class__",
    "__array__",
    "__array_wrap__",
    "__array_priority__",
    "__torch_function__",
    "__torch_dispatch__",
    "__dlpack__",
    "__dlpack_device__",
    "__len__",
    "__iter__",
    "__contains__",
    "__bool__",
    "__float__",
    "__int__",
    "__index__",
    "__complex__",
    "__reversed__",
    "__cuda_array_interface__",
    "__getstate__",
    "__copy__",
}
DUNDERS = {
    "__add__",
    "__radd__",
    "__iadd__",
    "__sub__",
    "__rsub__",
    "__isub__",
    "__mul__",
    "__rmul__",
    "__imul__",
    "__truediv__",
    "__rtruediv__",
    "__itruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__ifloordiv__",
    "__mod__",
    "__rmod__",
    "__imod__",
    "__pow__",
    "__rpow__",
    "__ipow__",
    "__matmul__",
    "__rmatmul__",
    "__and__",
    "__rand__",
    "__iand__",
    "__or__",
    "__ror__",
    "__ior__",
    "__xor__",
    "__rxor__",
    "__ixor__",
    "__lshift__",
    "__rlshift__",
    "__ilshift__",
    "__rshift__",
    "__rrshift__",
    "__irshift__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__eq__",
    "__ne__",
    "__getitem__",
    "__setitem__",
}
SKIP_NN = {
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    "Container",
    "DataParallel",
    "RNNBase",
    "RNNCellBase",
    "Identity",
    "Flatten",
    "Unflatten",
}
# results drawn at random: only dtype and shape are compared
RANDOM = (
    "rand",
    "dropout",
    "bernoulli",
    "multinomial",
    "normal",
    "poisson",
    "exponential_",
    "geometric_",
    "cauchy_",
    "log_normal_",
    "random_",
    "uniform_",
    "rrelu",
    "randperm",
    "fractional_max_pool",
    "gumbel",
    "Dropout",
    "RReLU",
    "FractionalMaxPool",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "svd_lowrank",
    "pca_lowrank",
    "binomial",
    "Transformer",  # the Transformer layers and stacks: their dropout (p=0.1 by default) acts in training mode
)
UNINITIALIZED = {"new"}  # Tensor.new(sizes) is torch.empty's spelling


def surface(lib):
    """name lists per kind for this library"""
    import inspect

    def fns(mod, skip=()):
        out = []
        for n in dir(mod):
            if n in skip or n.startswith(SKIP_PREFIX) or not n[:1].isalpha():
                continue
            try:
                v = getattr(mod, n)
            except Exception:  # noqa: BLE001, S112 - a lazy attribute that fails to load is not callable
                continue
            if inspect.ismodule(v) or inspect.isclass(v) or not callable(v):
                continue
            out.append(n)
        return out

    methods = []
    for n in dir(lib.Tensor):
        if n in SKIP_METHOD or (n.startswith("_") and n not in DUNDERS):
            continue
        if callable(getattr(lib.Tensor, n, None)):
            methods.append(n)
    nn_classes = [
        n
        for n in dir(lib.nn)
        if n[:1].isupper()
        and n not in SKIP_NN
        and not n.startswith("Lazy")
        and inspect.isclass(getattr(lib.nn, n))
        and issubclass(getattr(lib.nn, n), lib.nn.Module)
    ]
    return {
        "torch": fns(lib, SKIP_TORCH),
        "method": methods,
        "F": fns(
            lib.nn.functional,
            {
                "has_torch_function",
                "has_torch_function_unary",
                "has_torch_function_variadic",
                "handle_torch_function",
                "boolean_dispatch",
            },
        ),
        "special": fns(lib.special),
        "linalg": fns(lib.linalg),
        "nn": nn_classes,
    }


# ----------------------------------------------------------------------------------------------------------
# Argument patterns. One character per positional argument, then "|key=kind,..." for keywords:
# T tensor (random dtype, shape S)   U tensor like T   B tensor broadcastable to T   F float tensor shaped T
# M bool mask shaped T   L int64 index shaped T   l 1-D int64 index   W matrix (S[-1], k)   V vector (S[-1],)
# C list of 2-3 tensors like T   d dim   D dims permutation   i int -3..3   n int 0..4   k int 1..3
# s scalar   z shape list   b bool   y dtype   S string   N None
# nn classes: "ctor>forward" with forward kinds X (input whose size follows the first ctor int) and the above.

TEMPLATES = [
    "",
    "T",
    "TU",
    "TB",
    "TUU",
    "Td",
    "Tdb",
    "Td|keepdim=b",
    "T|dim=d",
    "T|dim=d,keepdim=b",
    "Ts",
    "Tss",
    "Ti",
    "Tn",
    "Tk",
    "Tkd",
    "Tz",
    "TD",
    "TdL",
    "TdLU",
    "TdLs",
    "Tdl",
    "Tdls",
    "TdlU",
    "TM",
    "TMs",
    "TMU",
    "MTU",
    "MTs",
    "TW",
    "TV",
    "TUs",
    "TU|alpha=s",
    "Ts|alpha=s",
    "TUss",
    "sT",
    "Tdd",
    "Tii",
    "Tnn",
    "n",
    "nn",
    "z",
    "zs",
    "z|dtype=y",
    "ss",
    "sss",
    "nnn",
    "Ty",
    "T|dtype=y",
    "Td|dtype=y",
    "TS",
    "TUS",
    "TU|reduction=S",
    "Ts|inplace=b",
    "T|inplace=b",
    "Tss|inplace=b",
    "T|p=s",
    "TU|p=s",
    "C",
    "Cd",
    "Cn",
    "TUV",
    "TUF",
    "TFF",
    "Tl",
    "T|min=s,max=s",
    "T|k=k",
    "Tk|dim=d",
    "TL",
    "Tsd",
    "TUd",
    "T|eps=s",
    "TN",
    "TNN",
    "Ts|dim=d",
    "TWV",
    "Tl|dim=d",
    "TdM",
    "Tkdbb",
    "TdS",
    "Td|dtype=y,keepdim=b",
    "TsN",
    "Tb",
]
NN_TEMPLATES = [
    ">X",
    "k>X",
    "kk>X",
    "kkk>X",
    "kkkk>X",
    "s>X",
    "b>X",
    "kk|bias=b>X",
    "k>XX",
    ">XX",
    "k>XL",
    ">XL",
    "kkk|padding=k>X",
    "kkk|stride=k>X",
    "k|affine=b>X",
    "kk>XX",
    "kk|batch_first=b>X",
    "z>X",
    "ss>X",
    "kkk|groups=k>X",
    "k|dim=d>X",
    ">XU",
    "s|inplace=b>X",
    "k|eps=s>X",
]

SCALARS = [
    0,
    1,
    -1,
    2,
    0.5,
    -0.5,
    2.5,
    -3,
    3,
    1e-3,
    7,
    -1.5,
    True,
    False,
    float("nan"),
    float("inf"),
    1e30,
    1e-5,
]
STRINGS = [
    "mean",
    "sum",
    "none",
    "reflect",
    "constant",
    "nearest",
    "bilinear",
    "linear",
    "fro",
    "nuc",
    "floor",
    "trunc",
    "ij",
    "xy",
    "replicate",
    "circular",
    "zeros",
    "batchmean",
    "tanh",
    "ortho",
]
DTYPES = ["float32", "float64", "int64", "int32", "bool", "float16", "bfloat16", "uint8", "int8", "int16"]
DTYPE_P = np.array([35, 20, 15, 5, 7, 6, 6, 3, 2, 1], dtype=float)
DTYPE_P /= DTYPE_P.sum()
FLOATS = {"float32", "float64", "float16", "bfloat16"}
SPECIAL_VALUES = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30, 1e-40, 1.0, -1.0, 0.5]


def parse(template):
    pos, _, kw = template.partition("|")
    kws = dict(item.split("=") for item in kw.split(",")) if kw else {}
    return pos, kws


class Gen:
    """draws the concrete arguments of one call; both libraries get the same numbers"""

    def __init__(self, rng, grad):
        self.rng, self.grad = rng, grad
        self.S = None
        self.D = None

    def dtype(self):
        return "float64" if self.grad else str(self.rng.choice(DTYPES, p=DTYPE_P))

    def shape(self):
        r = self.rng
        rank = int(r.choice(5, p=[0.15, 0.3, 0.3, 0.15, 0.1]))
        return tuple(int(r.choice(6, p=[0.04, 0.16, 0.2, 0.2, 0.2, 0.2])) for _ in range(rank))

    def values(self, shape, dtype):
        r = self.rng
        n = int(np.prod(shape)) if shape else 1
        if dtype in FLOATS:
            if self.grad:
                return r.uniform(-2, 2, size=shape)
            v = r.uniform(-3, 3, size=n)
            u = r.random()
            if u < 0.1:
                v = r.uniform(-1e4, 1e4, size=n)
            elif u < 0.35 and n:
                k = r.integers(1, n + 1)
                v[r.integers(0, n, size=k)] = r.choice(SPECIAL_VALUES, size=k)
            return v.reshape(shape)
        if dtype == "bool":
            return r.random(shape) < 0.5
        info = np.iinfo(dtype)
        lo, hi = (0, 10) if dtype == "uint8" else (-5, 6)
        v = r.integers(lo, hi, size=n)
        if r.random() < 0.08 and n:
            v[r.integers(0, n)] = r.choice([info.min, info.max])
        return v.astype(dtype).reshape(shape)

    def tensor(self, shape, dtype):
        layout = str(self.rng.choice(["c", "c", "c", "t", "s"])) if len(shape) >= 1 else "c"
        return ("T", dtype, self.values(shape, dtype), layout)

    def primary(self):
        if self.S is None:
            self.S, self.D = self.shape(), self.dtype()
        return self.S, self.D

    def same_dtype(self):
        return self.D if self.rng.random() < 0.85 else self.dtype()

    def index(self, shape):
        S, _ = self.primary()
        m = min(S) if S and min(S) > 0 else 1
        v = self.rng.integers(0, m, size=shape).astype(np.int64)
        if v.size and self.rng.random() < 0.05:
            v.flat[0] = self.rng.choice([m, -m - 1])
        return ("T", "int64", v, "c")

    def dim(self):
        rank = len(self.primary()[0])
        if self.rng.random() < 0.05:
            return int(self.rng.choice([rank, -rank - 1, 5]))
        return int(self.rng.integers(-max(rank, 1), max(rank, 1)))

    def arg(self, kind):
        r = self.rng
        if kind == "T":
            S, D = self.primary()
            return self.tensor(S, D)
        if kind == "U":
            S, _ = self.primary()
            return self.tensor(S, self.same_dtype())
        if kind == "B":
            S, _ = self.primary()
            k = int(r.integers(0, len(S) + 1))
            sh = tuple(1 if r.random() < 0.4 else s for s in S[len(S) - k :])
            return self.tensor(sh, self.same_dtype())
        if kind == "F":
            S, _ = self.primary()
            return self.tensor(S, "float64" if self.grad else str(r.choice(["float32", "float64"])))
        if kind == "M":
            S, _ = self.primary()
            return ("T", "bool", r.random(S) < 0.5, "c")
        if kind == "L":
            return self.index(self.primary()[0])
        if kind == "l":
            return self.index((int(r.integers(0, 5)),))
        if kind == "W":
            S, _ = self.primary()
            return self.tensor((S[-1] if S else 3, int(r.integers(1, 4))), self.same_dtype())
        if kind == "V":
            S, _ = self.primary()
            return self.tensor((S[-1] if S else 3,), self.same_dtype())
        if kind == "C":
            S, _ = self.primary()
            return ("C", [self.tensor(S, self.same_dtype()) for _ in range(int(r.integers(2, 4)))])
        if kind == "d":
            return ("py", self.dim())
        if kind == "D":
            rank = len(self.primary()[0])
            p = [int(x) for x in r.permutation(rank)]
            if p and r.random() < 0.3:
                p[0] -= rank
            return ("py", p)
        if kind == "i":
            return ("py", int(r.integers(-3, 4)))
        if kind == "n":
            return ("py", int(r.integers(0, 5)))
        if kind == "k":
            return ("py", int(r.integers(1, 4)))
        if kind == "s":
            v = SCALARS[int(r.integers(0, len(SCALARS)))]
            return ("py", v)
        if kind == "z":
            return ("py", [int(r.integers(0, 5)) for _ in range(int(r.integers(0, 4)))])
        if kind == "b":
            return ("py", bool(r.random() < 0.5))
        if kind == "y":
            return ("dtype", str(r.choice(DTYPES)))
        if kind == "S":
            return ("py", STRINGS[int(r.integers(0, len(STRINGS)))])
        if kind == "N":
            return ("py", None)
        raise ValueError(kind)

    def nn_input(self, ctor_ints):
        r = self.rng
        if ctor_ints:
            a = ctor_ints[0]
            shapes = [(2, a, 5, 5), (2, a, 5), (2, a), (3, 4, a), (a,), (2, a, 4, 4, 4), (2, 3, a)]
            self.S = shapes[int(r.integers(0, len(shapes)))]
        else:
            self.S = self.shape()
        self.D = "float64" if self.grad else str(r.choice(["float32", "float64", "float32", "int64"]))
        return self.tensor(self.S, self.D)


def make_call(kind, name, template, rng, grad):
    g = Gen(rng, grad)
    call = {"kind": kind, "name": name, "template": template, "grad": grad, "seed": int(rng.integers(2**31))}
    if kind == "nn":
        ctor, _, fwd = template.partition(">")
        cpos, ckw = parse(ctor)
        call["ctor"] = [g.arg(c) for c in cpos]
        call["ctor_kw"] = {k: g.arg(v) for k, v in ckw.items()}
        ints = [a[1] for a in call["ctor"] if a[0] == "py" and type(a[1]) is int and a[1] > 0]
        x = g.nn_input(ints)
        call["args"] = [x if c == "X" else g.arg(c) for c in fwd]
        call["kwargs"] = {}
        return call
    pos, kws = parse(template)
    if kind == "method":
        pos = "T" + pos  # self
    call["args"] = [g.arg(c) for c in pos]
    call["kwargs"] = {k: g.arg(v) for k, v in kws.items()}
    return call


def repro(call):
    """the call as code for both libraries (`torch` spelled as the library)"""

    def lit(v):  # a literal Python can read back (repr writes nan and inf bare)
        return re.sub(r"\b(nan|inf)\b", r"float('\1')", repr(v.tolist() if isinstance(v, np.ndarray) else v))

    def make(v, dt):  # an empty array's nested list loses its trailing sizes: spell its shape
        if v.size == 0:
            return f"torch.empty({tuple(v.shape)}, dtype=torch.{dt})"
        return f"torch.tensor({lit(v)}, dtype=torch.{dt})"

    def a(s):
        if s[0] == "T":  # the layout as Runner.tensor builds it
            _, dt, v, layout = s
            if layout == "t":
                order = ", ".join(str(d) for d in reversed(range(v.ndim)))
                return f"{make(v.transpose(), dt)}.permute({order})"
            if layout == "s":
                return f"{make(np.repeat(v, 2, axis=-1), dt)}[..., ::2]"
            return make(v, dt)
        if s[0] == "C":
            return "[" + ", ".join(a(x) for x in s[1]) + "]"
        if s[0] == "dtype":
            return f"torch.{s[1]}"
        return lit(s[1])

    def join(pos, kw):
        return ", ".join([a(x) for x in pos] + [f"{k}={a(v)}" for k, v in kw.items()])

    if call["kind"] == "method":
        self_, *rest = call["args"]
        return f"({a(self_)}).{call['name']}({join(rest, call['kwargs'])})"
    args = join(call["args"], call["kwargs"])
    if call["kind"] == "nn":
        return f"torch.nn.{call['name']}({join(call['ctor'], call['ctor_kw'])})({args})"
    prefix = {
        "torch": "torch",
        "F": "torch.nn.functional",
        "special": "torch.special",
        "linalg": "torch.linalg",
    }
    return f"{prefix[call['kind']]}.{call['name']}({args})" + (
        "  # float64 gradients" if call["grad"] else ""
    )


# ----------------------------------------------------------------------------------------------------------
# The worker: builds the inputs in its library, makes the call, encodes what happened.


def _builtin_base(exc):
    for k in type(exc).__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return "Exception"


def _raised(exc):
    """an exception as an outcome: the builtin class `except` would name, its own class, its message"""
    return {"raise": (_builtin_base(exc), type(exc).__name__, str(exc)[:300])}


class Runner:
    def __init__(self, libname):
        import warnings

        warnings.simplefilter("ignore")
        if libname == "torch":
            import torch as lib

            lib.set_num_threads(1)
        else:
            import minitorch as lib
        self.lib = lib

    def tensor(self, spec, leaves, grad):
        lib = self.lib
        _, dt, v, layout = spec
        if layout == "t":
            v = np.ascontiguousarray(v.transpose())
        elif layout == "s":
            v = np.repeat(v, 2, axis=-1)
        if dt in ("float16", "bfloat16"):
            t = lib.from_numpy(np.asarray(v, dtype=np.float32)).to(getattr(lib, dt))
        else:
            t = lib.from_numpy(np.array(v, dtype=dt)).clone()
        if grad and dt in FLOATS:
            t.requires_grad_(True)
            leaves.append(t)
            t = t * 1
        if layout == "t":
            t = t.permute(*reversed(range(t.dim())))
        elif layout == "s":
            t = t[..., ::2]
        return t

    def arg(self, spec, leaves, grad, tensors):
        tag = spec[0]
        if tag == "T":
            t = self.tensor(spec, leaves, grad)
            tensors.append(t)
            return t
        if tag == "C":
            return [self.arg(s, leaves, grad, tensors) for s in spec[1]]
        if tag == "dtype":
            return getattr(self.lib, spec[1])
        return spec[1]

    def read(self, t):
        t = t.detach()
        dt = str(t.dtype).split(".")[-1]
        if dt in ("float16", "bfloat16"):
            t = t.float()
        # force: PyTorch's ZeroTensor gradients (sgn of a real input) refuse a plain numpy()
        return dt, np.array(t.numpy(force=True), copy=True)

    def enc(self, r, depth=0):
        lib = self.lib
        sparse_layout = str(getattr(r, "layout", "strided")).split(".")[-1] != "strided"
        if getattr(r, "is_sparse", False) is True or (sparse_layout and hasattr(r, "to_dense")):
            return ("sparse",)  # PyTorch's are Tensors; ours are Python objects over dense tensors
        if isinstance(r, lib.Tensor):
            dt, arr = self.read(r)
            return ("T", dt, tuple(r.shape), arr, bool(r.requires_grad))
        if r is None:
            return ("None",)
        if isinstance(r, (bool, int, float, complex)):
            return ("py", type(r).__name__, r)
        if isinstance(r, lib.dtype):
            return ("dtype", str(r).split(".")[-1])
        if isinstance(r, lib.device):
            return ("device", str(r))
        if isinstance(r, str):
            return ("str", r.replace("minitorch", "torch"))
        if isinstance(r, (tuple, list)) and depth < 4:
            return ("seq", [self.enc(x, depth + 1) for x in r])
        if isinstance(r, np.ndarray):
            return ("nd", str(r.dtype), r.shape, r.copy())
        return ("obj", type(r).__name__)

    def target(self, call, leaves, tensors):
        lib, kind, name, grad = self.lib, call["kind"], call["name"], call["grad"]
        args = [self.arg(s, leaves, grad, tensors) for s in call["args"]]
        kwargs = {k: self.arg(s, leaves, grad, tensors) for k, s in call["kwargs"].items()}
        if kind == "method":
            return getattr(args[0], name), args[1:], kwargs, None
        if kind == "nn":
            cargs = [self.arg(s, [], False, []) for s in call["ctor"]]
            ckw = {k: self.arg(s, [], False, []) for k, s in call["ctor_kw"].items()}
            mod = getattr(lib.nn, name)(*cargs, **ckw)
            rng = np.random.default_rng(call["seed"])
            params = []
            with lib.no_grad():
                for pname, p in sorted(mod.named_parameters()):
                    vals = rng.uniform(-0.5, 0.5, size=tuple(p.shape))
                    p.copy_(lib.from_numpy(vals).to(p.dtype))
                    params.append((pname, tuple(p.shape)))
            if grad:
                mod.double()
            return mod, args, kwargs, (mod, params)
        mod = {"torch": lib, "F": lib.nn.functional, "special": lib.special, "linalg": lib.linalg}[kind]
        return getattr(mod, name), args, kwargs, None

    def run(self, call):
        leaves, tensors = [], []
        try:
            fn, args, kwargs, nnmod = self.target(call, leaves, tensors)
        except Exception as e:  # noqa: BLE001 - a constructor refusing its arguments is an outcome
            return _raised(e)
        before = [self.read(t)[1] for t in tensors]
        try:
            r = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            return _raised(e)
        out = {"result": self.enc(r)}
        if nnmod is not None:
            out["params"] = nnmod[1]
        mutated = {}
        for i, (t, b) in enumerate(zip(tensors, before)):
            try:
                dt, a = self.read(t)
            except Exception:  # noqa: BLE001, S112 - the call resized or freed it: not comparable
                continue
            if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
                mutated[i] = (dt, a, b)  # the value before, to tell a rounding-sized change from a real one
        out["mutated"] = mutated
        if call["grad"]:
            out["grad"] = self.grads(r, leaves, nnmod, call["seed"])
        return out

    def grads(self, r, leaves, nnmod, seed):
        lib = self.lib
        outs = r if isinstance(r, (tuple, list)) else [r]
        outs = [o for o in outs if isinstance(o, lib.Tensor) and o.requires_grad and o.dtype == lib.float64]
        if not outs:
            return ("none",)
        rng = np.random.default_rng(seed + 1)
        params = [p for _, p in sorted(nnmod[0].named_parameters())] if nnmod else []
        try:
            s = sum((o * lib.from_numpy(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
            s.backward()
        except Exception as e:  # noqa: BLE001
            return ("raise", _builtin_base(e), str(e)[:200])
        gs = []
        for t in leaves + params:
            gs.append(None if t.grad is None else self.read(t.grad)[1])
        return ("grads", gs)


def _send(f, obj):
    data = pickle.dumps(obj, protocol=4)
    f.write(struct.pack("<Q", len(data)) + data)
    f.flush()


def _recv(f):
    head = f.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    return pickle.loads(f.read(n))


def worker_main(libname):
    # an address-space cap turns a huge allocation into MemoryError; the sanitizer build reserves terabytes of
    # shadow memory up front, so there ASan's allocator_may_return_null does that job instead
    if libname == "minitorch" and not os.environ.get("MINITORCH_SANITIZED"):
        import resource

        cap = int(os.environ.get("MINITORCH_FUZZ_MEM_BYTES", str(8 << 30)))
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    runner = Runner(libname)
    # the protocol gets its own copy of fd 1; fd 1 itself goes to stderr, so output printed by either library's
    # C++ or Python code cannot corrupt the stream
    fin, fout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    while True:
        try:
            msg = _recv(fin)
        except EOFError:
            return
        if msg == "surface":
            _send(fout, surface(runner.lib))
            continue
        try:
            res = runner.run(msg)
        except BaseException as e:  # noqa: BLE001 - e.g. a SystemExit or KeyboardInterrupt raised by the call
            res = _raised(e)
        try:
            _send(fout, res)
        except Exception as e:  # noqa: BLE001 - an unpicklable result
            _send(fout, {"result": ("obj", f"unpicklable: {e}")})


# ----------------------------------------------------------------------------------------------------------
# The driver.


def oracle_python():
    """the interpreter that runs PyTorch, or None"""
    env = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if env:
        return env
    try:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec and "minitorch" not in (spec.origin or ""):
            return sys.executable
    except Exception:  # noqa: BLE001, S110 - a torch that cannot be found is no oracle
        pass
    return None


class Worker:
    def __init__(self, lib, python):
        self.lib, self.python = lib, python
        self.proc = None
        self.start()

    def start(self):
        env = dict(os.environ)
        if self.lib == "torch":
            env.pop("PYTHONPATH", None)  # the oracle's own torch, not a shim that maps torch to minitorch
            # under scripts/sanitize.sh's environment only minitorch runs sanitized: PyTorch is not built for it
            for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
                env.pop(k, None)
        env.setdefault("OMP_NUM_THREADS", "1" if self.lib == "torch" else "2")
        self.proc = subprocess.Popen(
            [self.python, "-X", "faulthandler", os.path.abspath(__file__), "--worker", self.lib],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if self.lib == "torch" else None,
            env=env,
            cwd=os.path.dirname(os.path.dirname(HERE)),
        )

    def send(self, msg):
        _send(self.proc.stdin, msg)

    def recv(self, timeout):
        """the reply, or ("crash", signal) / ("hang",)"""
        fd = self.proc.stdout
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.start()
            return ("hang",)
        try:
            return _recv(fd)
        except Exception:  # noqa: BLE001 - EOF or a broken stream: the worker is gone
            rc = self.proc.wait()
            self.start()
            return ("crash", rc)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.proc.kill()


TOLS = {
    "float64": (1e-9, 1e-9),
    "float32": (2e-5, 1e-5),
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}


def _scale(call):
    m = 1.0
    for s in call["args"]:
        if s[0] == "T" and s[1] in FLOATS and s[2].size:
            fin = np.abs(s[2][np.isfinite(s[2])])
            if fin.size:
                m = max(m, float(fin.max()))
    return m


def close(a, b, dtype, scale):
    """b is PyTorch's; equal nan/inf positions, finite values within the dtype's tolerance"""
    if a.shape != b.shape:
        return False
    if np.iscomplexobj(a) or np.iscomplexobj(b):  # the real and imaginary parts, each as a float array
        part = {"complex64": "float32"}.get(dtype, "float64")
        return close(np.stack([a.real, a.imag], -1), np.stack([b.real, b.imag], -1), part, scale)
    if dtype not in FLOATS and not np.issubdtype(b.dtype, np.floating):
        return np.array_equal(a, b)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    inf_a, inf_b = np.isinf(a), np.isinf(b)
    if not np.array_equal(inf_a, inf_b) or not np.array_equal(a[inf_a], b[inf_b]):
        return False
    rtol, atol = TOLS.get(dtype, TOLS["float32"])
    fin = np.isfinite(b)
    ref = max(scale, float(np.abs(b[fin]).max()) if fin.any() else 0.0)
    return bool(np.all(np.abs(a[fin] - b[fin]) <= atol * ref + rtol * np.abs(b[fin])))


def compare_enc(m, t, call, scale, values=True, path="result"):
    """None when equal, else what differs"""
    if m[0] != t[0]:
        return f"{path}: {m[0]} vs PyTorch's {t[0]}"
    if m[0] == "T":
        if m[1] != t[1]:
            return f"{path}: dtype {m[1]} vs PyTorch's {t[1]}"
        if m[2] != t[2]:
            return f"{path}: shape {m[2]} vs PyTorch's {t[2]}"
        if values and not close(m[3], t[3], m[1], scale):
            return f"{path}: values differ"
        return None
    if m[0] == "seq":
        if len(m[1]) != len(t[1]):
            return f"{path}: {len(m[1])} items vs PyTorch's {len(t[1])}"
        for i, (x, y) in enumerate(zip(m[1], t[1])):
            d = compare_enc(x, y, call, scale, values, f"{path}[{i}]")
            if d:
                return d
        return None
    if m[0] == "py":
        if values:
            x, y = m[2], t[2]
            if isinstance(y, float) and isinstance(x, (int, float)):
                if not close(np.array([float(x)]), np.array([y]), "float64", scale):
                    return f"{path}: {x!r} vs PyTorch's {y!r}"
            elif x != y:
                return f"{path}: {x!r} vs PyTorch's {y!r}"
        if m[1] != t[1] and not (m[1] in ("int", "bool") and t[1] in ("int", "bool") and m[2] == t[2]):
            return f"{path}: Python {m[1]} vs PyTorch's {t[1]}"
        return None
    if m[0] == "nd":
        if m[1] != t[1] or m[2] != t[2] or (values and not close(m[3], t[3], "float64", scale)):
            return f"{path}: ndarray differs"
        return None
    if m[0] in ("dtype", "device", "str") and m[1] != t[1]:
        return f"{path}: {m[1]!r} vs PyTorch's {t[1]!r}"
    return None


def compatible(mexc, texc):
    """the exception minitorch raised is caught by `except` of PyTorch's builtin class"""
    import builtins

    mb, tb = getattr(builtins, mexc[0], Exception), getattr(builtins, texc[0], Exception)
    return issubclass(mb, tb)


TIES = (
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "median",
    "mode",
    "max",
    "min",
    "nanmedian",
    "cummax",
    "cummin",
    "argmax",
    "argmin",
    "unique",
    "msort",
)


# the interpolating resamplers: where an inf meets a tap of weight 0, 0 * inf is NaN, and which taps each
# implementation visits differs (the known-differences table names the detail this adds)
INTERPOLATION = frozenset(
    [
        "interpolate",
        "upsample",
        "upsample_bilinear",
        "Upsample",
        "UpsamplingBilinear2d",
    ]
)
# LAPACK's direct solvers and factorizations: on inf/NaN input its results are unspecified (how NaN spreads
# through the elimination differs between PyTorch's MKL and our OpenBLAS); a difference there says so in its
# detail, which the known-differences table names
LAPACK = frozenset(
    [
        "geqrf",
        "lu",
        "lu_factor",
        "lu_factor_ex",
        "lu_solve",
        "solve",
        "solve_ex",
        "inv",
        "inv_ex",
        "det",
        "slogdet",
        "logdet",
        "cholesky",
        "cholesky_ex",
        "cholesky_solve",
        "cholesky_inverse",
        "qr",
        "householder_product",
        "orgqr",
        "ormqr",
        "solve_triangular",
        "triangular_solve",
        "tensorsolve",
        "tensorinv",
    ]
)


def _non_finite_input(call):
    def walk(specs):
        for s in specs:
            if s[0] == "T" and np.issubdtype(np.asarray(s[2]).dtype, np.inexact):
                if not np.isfinite(np.asarray(s[2])).all():
                    return True
            elif s[0] == "C" and walk(s[1]):
                return True
        return False

    return walk(list(call["args"]) + list(call["kwargs"].values()))


def _integer_dtype_arg(call):
    """a dtype argument naming an integer or bool type (the input is cast to it before the op)"""
    specs = list(call["args"]) + list(call.get("kwargs", {}).values())
    return any(s[0] == "dtype" and s[1] not in FLOATS for s in specs)


def classify(call, m, t):
    """(class, detail): ok / crash / hang / wrong / accepted_bad / missing / exc_type / oracle_failed"""
    if isinstance(t, tuple):  # ("crash", rc) or ("hang",) from PyTorch's worker
        return "oracle_failed", str(t)
    if isinstance(m, tuple):
        return m[0], str(m)
    if "raise" in t and "raise" in m:
        if compatible(m["raise"], t["raise"]):
            return "ok", ""
        return (
            "exc_type",
            f"{m['raise'][0]}({m['raise'][2][:100]}) vs PyTorch's {t['raise'][0]}({t['raise'][2][:100]})",
        )
    if "raise" in t:
        return "accepted_bad", f"PyTorch: {t['raise'][0]}({t['raise'][2][:160]})"
    if "raise" in m:
        return "missing", f"{m['raise'][0]}({m['raise'][2][:160]})"
    name = call["name"]
    scale = _scale(call)
    values = not any(k in name for k in RANDOM) and name not in UNINITIALIZED
    d = compare_enc(m["result"], t["result"], call, scale, values)
    if d and values and name in TIES and m["result"][0] == "seq" and "[1]" in d:
        d = None  # indices of equal values: either answer is right
    if d:
        if name in LAPACK and "values differ" in d and _non_finite_input(call):
            d += " (non-finite input to LAPACK)"
        elif "values differ" in d and _integer_dtype_arg(call) and _non_finite_input(call):
            d += " (non-finite input cast to an integer dtype)"
        elif name in INTERPOLATION and "values differ" in d and _non_finite_input(call):
            d += " (non-finite input to a linear interpolation)"
        return "wrong", d
    if m.get("params") != t.get("params"):
        return "wrong", f"parameters {m.get('params')} vs PyTorch's {t.get('params')}"
    if values:
        mk, tk = set(m["mutated"]), set(t["mutated"])
        for i in mk ^ tk:
            # one side changed input i, the other left it: the same answer when the change is within the
            # dtype's tolerance (hypot_(5961.99, 2.22) rounds back to 5961.99 in float32 on one side only)
            dt_, after, before = (m if i in mk else t)["mutated"][i][:3]
            if after.shape != before.shape or not close(after, before, dt_, scale):
                return "wrong", f"mutated inputs {sorted(mk)} vs PyTorch's {sorted(tk)}"
        for i in mk & tk:
            (dm, am), (dt, at) = m["mutated"][i][:2], t["mutated"][i][:2]
            if dm != dt or not close(am, at, dt, scale):
                return "wrong", f"input {i} mutated to different values"
    if call["grad"] and values:
        mg, tg = m["grad"], t["grad"]
        if mg[0] != tg[0]:
            if tg[0] == "raise" and "not implemented" in tg[2]:
                return "beyond_pytorch", f"backward: PyTorch has no derivative here ({tg[2][:120]})"
            if tg[0] == "raise":
                return "accepted_bad", f"backward: PyTorch raised {tg[2][:120]}"
            if mg[0] == "raise":
                return "missing", f"backward: {mg[2][:160]}"
            return "wrong", f"gradient: {mg[0]} vs PyTorch's {tg[0]}"
        if mg[0] == "grads":
            for i, (a, b) in enumerate(zip(mg[1], tg[1])):
                # no gradient and a gradient of zeros say the same (PyTorch gives zeros for copysign's sign)
                if a is None and b is not None:
                    a = np.zeros_like(b)
                if b is None and a is not None:
                    b = np.zeros_like(a)
                if a is not None and not close(a, b, "float64", max(scale, 1.0) * 1e3):
                    return "wrong", f"gradient of input {i} differs"
    return "ok", ""


def load_templates():
    try:
        with open(TEMPLATES_FILE) as f:
            return json.load(f)
    except OSError:
        return {}


# operators take one operand (users write `a - b`, not `a.__sub__(b, 3)`); indexing takes an index
OPERATOR_TEMPLATES = ["", "T", "U", "B", "s", "V"]
ITEM_TEMPLATES = {
    "__getitem__": ["i", "l", "M", "N", "b", "L"],
    "__setitem__": ["is", "ls", "Ms", "iU", "MU", "Ns"],
}


def pick(rng, kind, name, learned, valid_share):
    pool = NN_TEMPLATES if kind == "nn" else TEMPLATES
    ok = learned.get(f"{kind}:{name}")
    if kind == "method" and name.startswith("__"):
        pool = ITEM_TEMPLATES.get(name, OPERATOR_TEMPLATES)
        ok = [t for t in ok or [] if t in pool]
    if ok and rng.random() < valid_share:
        return ok[int(rng.integers(0, len(ok)))]
    return pool[int(rng.integers(0, len(pool)))]


def _mix64(x):
    """splitmix64's finalizer over a uint64 array: a fixed pseudo-random permutation of 64-bit values"""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def plan(names, learned, seed, calls, valid_share=0.85, grad_share=0.15):
    """Call i goes to the name whose mixed (name key, call draw) is smallest (rendezvous hashing) and draws the
    rest from a generator of its own: a name added to or dropped from the surface moves only the calls it wins
    or loses, so a fixed-seed sample (tests/ops/test_difffuzz.py) stays the same sample as the API grows."""
    keys = np.array(
        [
            int.from_bytes(hashlib.blake2b(f"{k}:{n}".encode(), digest_size=8).digest(), "little")
            for k, n in names
        ],
        dtype=np.uint64,
    )
    draws = np.random.default_rng(seed).integers(0, 2**63, size=calls, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(calls):
            kind, name = names[int(np.argmin(_mix64(keys ^ draws[i])))]
            rng = np.random.default_rng([seed, i])
            tpl = pick(rng, kind, name, learned, valid_share)
            grad = bool(rng.random() < grad_share)
            yield make_call(kind, name, tpl, rng, grad)


def common_surface(mt, pt):
    mt.send("surface")
    pt.send("surface")
    a, b = mt.recv(120), pt.recv(120)
    names = sorted((k, n) for k in a for n in set(a[k]) & set(b[k]))
    missing = sorted((k, n) for k in b for n in set(b[k]) - set(a[k]))
    return names, missing


def run(calls, seed, oracle=None, report=None, timeout=20.0, progress=False, only=None):
    """runs `calls` calls; returns (counts by class, findings list[(class, kind, name, detail, repro)])"""
    oracle = oracle or oracle_python()
    if oracle is None:
        raise RuntimeError(
            "no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch"
        )
    mt, pt = Worker("minitorch", sys.executable), Worker("torch", oracle)
    try:
        names, missing = common_surface(mt, pt)
        if only:
            names = [x for x in names if f"{x[0]}:{x[1]}" in only or x[1] in only]
        learned = load_templates()
        counts, findings = Counter(), []
        t0 = time.time()
        for i, call in enumerate(plan(names, learned, seed, calls)):
            pt.send(call)
            mt.send(call)
            r_t = pt.recv(timeout)
            r_m = mt.recv(timeout)
            cls, detail = classify(call, r_m, r_t)
            counts[cls] += 1
            if cls != "ok":
                findings.append((cls, call["kind"], call["name"], detail, call))
            if progress and (i + 1) % 2000 == 0:
                rate = (i + 1) / (time.time() - t0)
                print(f"{i + 1} calls, {rate:.0f}/s, {dict(counts)}", file=sys.stderr, flush=True)
        counts["seconds"] = round(time.time() - t0)
        if report:
            write_report(report, counts, findings, names, missing, seed, calls)
        return counts, findings
    finally:
        mt.close()
        pt.close()


def write_report(path, counts, findings, names, missing, seed, calls):
    os.makedirs(path, exist_ok=True)
    by = defaultdict(list)
    for f in findings:
        by[(f[0], f[1], f[2])].append(f)
    with open(os.path.join(path, f"report.{seed}.md"), "w") as out:
        out.write(f"# difffuzz seed {seed}, {calls} calls over {len(names)} names\n\n{dict(counts)}\n\n")
        out.write(f"names PyTorch has and minitorch lacks: {len(missing)}\n\n")
        for key, fs in sorted(by.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            cls, kind, name = key
            out.write(f"## {cls} {kind}:{name} ({len(fs)})\n")
            seen = set()
            for f in fs:
                if f[3][:60] in seen:
                    continue
                seen.add(f[3][:60])
                out.write(f"- {f[3]}\n    {repro(f[4])[:600]}\n")
                if len(seen) >= 3:
                    break
    with open(os.path.join(path, f"findings.{seed}.pkl"), "wb") as f:
        pickle.dump(findings, f)
    with open(os.path.join(path, f"missing_names.{seed}.txt"), "w") as f:
        f.write("\n".join(f"{k}:{n}" for k, n in missing))


def calibrate(path, tries=2, oracle=None):
    """the templates each name accepts in PyTorch, by trying each a few times"""
    oracle = oracle or oracle_python()
    pt = Worker("torch", oracle)
    pt.send("surface")
    surf = pt.recv(120)
    rng = np.random.default_rng(12345)
    learned = {}
    done = set()
    if os.path.exists(path):  # resume: the kinds already in the file are kept
        with open(path) as f:
            learned = json.load(f)
        done = {k.split(":")[0] for k in learned}
    for kind, ns in surf.items():
        if kind in done:
            continue
        pool = NN_TEMPLATES if kind == "nn" else TEMPLATES
        for name in ns:
            good = []
            for tpl in pool:
                wins = 0
                for _ in range(tries):
                    pt.send(make_call(kind, name, tpl, rng, False))
                    r = pt.recv(20)
                    wins += isinstance(r, dict) and "result" in r
                if wins:
                    good.append(tpl)
            if good:
                learned[f"{kind}:{name}"] = good
        print(kind, len(ns), "names", file=sys.stderr, flush=True)
        with open(path, "w") as f:
            json.dump(learned, f, indent=0, sort_keys=True)
    pt.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker")
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", default="/tmp/difffuzz")
    ap.add_argument("--calibrate")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    if a.worker:
        return worker_main(a.worker)
    if a.calibrate:
        return calibrate(a.calibrate)
    counts, _ = run(a.calls, a.seed, report=a.report, progress=True, only=a.only)
    print(dict(counts))


if __name__ == "__main__":
    main()
