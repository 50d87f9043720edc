"""Functions with Python side effects (list/dict/set mutation, attribute and global stores, a helper that
mutates, breaks around them), run by test_side_effects.py under minitorch and under PyTorch: `torch` is set on
this module by whoever loads it, before it runs. ``run_all()`` compiles each with a counting backend, calls it on changing
inputs, and records the outputs, the state its side effects left, the same for the eager run, and the number of
graphs the backend got."""

import logging
import random

torch = globals()["torch"]  # the loader puts minitorch or torch here before the module runs
calls = []


def be(gm, example_inputs):
    calls.append(1)
    return gm.forward


def plain(v):
    if isinstance(v, torch.Tensor):
        return ["T", v.tolist()]
    if isinstance(v, (list, tuple)):
        return [plain(a) for a in v]
    if isinstance(v, dict):
        return {str(k): plain(a) for k, a in v.items()}
    if isinstance(v, set):
        return sorted(plain(a) for a in v)
    return v


results = {}


def check(name, fn, state, inputs, fullgraph=False):
    """fn(x) compiled on each input, then the state (a function returning what the side effects left) and the
    outputs; the same run eagerly after state reset gives the expected values."""
    calls.clear()
    torch._dynamo.reset()
    cf = torch.compile(fn, backend=be, fullgraph=fullgraph)
    reset, read = state
    reset()
    outs = [plain(cf(*a)) for a in inputs]
    got = plain(read())
    reset()
    eager_outs = [plain(fn(*a)) for a in inputs]
    results[name] = {
        "outs": outs,
        "state": got,
        "eager_outs": eager_outs,
        "eager_state": plain(read()),
        "graphs": len(calls),
    }


xs = [torch.arange(3.0) + i for i in range(4)]
one = [(x,) for x in xs]

LOG = []


def log_reset():
    LOG.clear()


def f_append(x):
    LOG.append(1)
    y = x * 2
    return y + 1


def f_append_tensor(x):
    y = x * 2
    LOG.append(y)
    y.add_(1)
    LOG.extend([y.sum(), "s"])
    return y


D = {}


def d_reset():
    D.clear()
    D["keep"] = 1


def f_dict(x):
    y = x + 1
    D["y"] = y
    D["n"] = D.get("n", 0) + 1
    D.pop("keep", None)
    return y * 2


class Obj:
    pass


O = Obj()


def o_reset():
    O.n = 0
    O.last = None


def f_attr(x):
    O.n += 1
    O.last = x.sum()
    return x + O.n


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.last = None
        self.register_buffer("ema", torch.zeros(3))

    def forward(self, x):
        self.calls += 1
        self.last = x * 3
        self.ema = self.ema * 0.5 + x
        return self.last - 1


M = Counter()


def m_reset():
    M.calls = 0
    M.last = None
    M.ema = torch.zeros(3)


def f_arg(x, out):
    out.append(x * 2)
    out.append(len(out))
    return x


ARGS = [(x, []) for x in xs]


def arg_reset():
    for _, o in ARGS:
        o.clear()


def make_counter():
    n = 0

    def f(x):
        nonlocal n
        n += 1
        return x * n

    def read():
        return n

    def reset():
        nonlocal n
        n = 0

    return f, read, reset


f_cell, cell_read, cell_reset = make_counter()

G = None


def g_reset():
    global G
    G = None


def f_global(x):
    global G
    G = x.sum() * 2
    return x - 1


EVENTS = []


def note(tag, v):
    EVENTS.append((tag, v))


def f_helper(x):
    note("start", 0)
    y = x.relu()
    note("mid", y)
    return y + 1


S = set()


def f_set(x):
    S.add("a")
    S.discard("b")
    return x + len(S)


def s_reset():
    S.clear()
    S.add("b")


def f_break(x):
    LOG.append("before")
    y = float(x.sum())
    LOG.append("after")
    return x * y


def f_break_if(x):
    LOG.append(x.sum())
    if x.sum() > 4:
        LOG.append("big")
        return x + 1
    return x - 1


def f_log_after(x):
    LOG.append("a")
    LOGGER.info("mid")
    LOG.append("b")
    return x + 1


def breaking_helper(x):
    LOG.append("helper")
    return float(x.sum())


def f_break_in_helper(x):
    LOG.append("caller")
    return x * breaking_helper(x)


class BreakCounter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        s = x.sum().item()
        return x * s


BM = BreakCounter()


def bm_reset():
    BM.calls = 0


RECORDS = []


class ListHandler(logging.Handler):
    def emit(self, record):
        RECORDS.append(record.getMessage())


LOGGER = logging.getLogger("side_effect_cases")
LOGGER.addHandler(ListHandler())
LOGGER.setLevel(logging.INFO)
LOGGER.propagate = False


def f_log(x):
    y = x + 1
    LOGGER.info("sum %s", 3)
    return y * 2


def f_random(x):
    return x * random.random()


def r_reset():
    random.seed(0)
    RECORDS.clear()


def run_all():
    results.clear()
    check("append constant", f_append, (log_reset, lambda: LOG), one)
    check("append constant fullgraph", f_append, (log_reset, lambda: LOG), one, fullgraph=True)
    check("append traced tensor, then in-place", f_append_tensor, (log_reset, lambda: LOG), one)
    check("dict item assignment", f_dict, (d_reset, lambda: D), one)
    check("object attribute", f_attr, (o_reset, lambda: [O.n, O.last]), one * 3)
    check("module attributes and buffer", M, (m_reset, lambda: [M.calls, M.last, M.ema]), one)
    check("argument list", f_arg, (arg_reset, lambda: [o for _, o in ARGS]), ARGS)
    check("nonlocal counter", f_cell, (cell_reset, cell_read), one)
    check("global store of a traced value", f_global, (g_reset, lambda: G), one)
    check("helper function mutates a global", f_helper, (EVENTS.clear, lambda: EVENTS), one)
    check("set", f_set, (s_reset, lambda: S), one)
    check("logger call", f_log, (RECORDS.clear, lambda: RECORDS), one)
    check("python random", f_random, (r_reset, lambda: random.random()), one)
    check("side effects around a graph break", f_break, (log_reset, lambda: LOG), one)
    check("side effect before a data-dependent branch", f_break_if, (log_reset, lambda: LOG), one)
    check(
        "side effects around a logger call",
        f_log_after,
        (lambda: (LOG.clear(), RECORDS.clear()), lambda: [LOG, RECORDS]),
        one,
    )
    check("side effects in a helper that breaks", f_break_in_helper, (log_reset, lambda: LOG), one)
    check("module attribute before a break", BM, (bm_reset, lambda: BM.calls), one)
    return results
