"""Functions whose first compiled call shows whether the backend's compiled graph ran (a backend that changes
results, counts of its runs, inputs and buffers written in place, side effects, random draws), run by
test_first_call.py under minitorch and under PyTorch: `torch` is set on this module by whoever loads it, before
it runs. ``run_all()`` returns, per case, the outputs of each call, the state left behind and the counts."""

torch = globals()["torch"]  # the loader puts minitorch or torch here before the module runs
graphs = []
runs = []


def counting(gm, example_inputs):
    graphs.append(1)

    def run(*args):
        runs.append(1)
        return gm.forward(*args)

    return run


def shifting(gm, example_inputs):
    """A backend whose compiled graph differs from eager: every input is shifted by one."""
    graphs.append(1)

    def run(*args):
        runs.append(1)
        return gm.forward(*[a + 1 if isinstance(a, torch.Tensor) else a for a in args])

    return run


def plain(v):
    if isinstance(v, torch.Tensor):
        return ["T", [round(x, 4) for x in v.detach().reshape(-1).tolist()], list(v.shape)]
    if isinstance(v, (list, tuple)):
        return [plain(a) for a in v]
    if isinstance(v, dict):
        return {str(k): plain(a) for k, a in v.items()}
    return v


results = {}


def check(name, fn, backend, make_inputs, read=lambda: None, calls=2):
    """fn compiled with backend, called `calls` times on fresh inputs from make_inputs(); what read() gives
    after, and the inputs as the calls left them."""
    graphs.clear()
    runs.clear()
    torch._dynamo.reset()
    cf = torch.compile(fn, backend=backend)
    outs, inputs = [], []
    for _ in range(calls):
        args = make_inputs()
        outs.append(plain(cf(*args)))
        inputs.append(plain(args))
    results[name] = {
        "outs": outs,
        "inputs": inputs,
        "state": plain(read()),
        "graphs": len(graphs),
        "runs": len(runs),
    }


def ones():
    return (torch.ones(3),)


LOG = []


def f_log(x):
    y = x * 2
    LOG.append(y)
    return y + 1


def f_inplace(x):
    x.add_(1)
    return x * 2


def f_setitem(x):
    x[0] = 7.0
    return x.sum()


class Ema(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("avg", torch.zeros(3))
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x):
        self.avg.mul_(0.5).add_(x.mean(0))
        return self.bn(x) + self.avg


EMA = Ema()


def ema_inputs():
    return (torch.arange(6.0).reshape(2, 3),)


def ema_state():
    return [EMA.avg, EMA.bn.running_mean, EMA.bn.running_var, EMA.bn.num_batches_tracked]


class Clamp(torch.nn.Module):
    """A parameter written in place under no_grad (the capture's write cannot be undone: it stands)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.no_grad():
            self.w.add_(1.0)
        return x * self.w


CLAMP = Clamp()


def f_nonleaf(a):
    x = a * 1
    x.mul_(3)
    return x.sum()


def grad_of_nonleaf():
    a = torch.ones(3, requires_grad=True)
    cf = torch.compile(f_nonleaf, backend=counting)
    cf(a).backward()
    return a.grad


def f_random(x):
    return x + torch.rand(3)


def random_draws():
    """The first compiled call draws what eager draws under the same seed, and leaves the generator as
    eager leaves it."""
    torch._dynamo.reset()
    cf = torch.compile(f_random, backend=counting)
    torch.manual_seed(0)
    got = [cf(torch.zeros(3)), torch.rand(2)]
    torch.manual_seed(0)
    want = [f_random(torch.zeros(3)), torch.rand(2)]
    return [bool(torch.equal(a, b)) for a, b in zip(got, want)]


def run_all():
    results.clear()
    check("shifting backend", lambda x: x * 2, shifting, ones)
    check("counting backend", lambda x: x.sin() + 1, counting, ones, calls=3)
    LOG.clear()
    check("side effect of a traced value", f_log, shifting, ones, lambda: LOG)
    check("input written in place", f_inplace, counting, ones)
    check("input written in place, shifting backend", f_inplace, shifting, ones)
    check("setitem on an input", f_setitem, counting, ones)
    check("buffers written in place", EMA, counting, ema_inputs, ema_state)
    check("parameter written in place", CLAMP, counting, ones, lambda: CLAMP.w)
    results["gradient through an input written in place"] = plain(grad_of_nonleaf())
    results["random draws"] = random_draws()
    return results
