"""Compiled code whose state tensors live outside its arguments (a module attribute replaced each call as an
RNN's hidden state is, a buffer reassigned, an attribute of an object argument, a global read or rebound, a
closure cell), run by test_tensor_state.py under minitorch and under PyTorch: `torch` is set on this module by
whoever loads it, before it runs. ``run_all()`` gives, per case, the outputs, the state left behind and the
number of graphs the backend got."""

torch = globals()["torch"]  # the loader puts minitorch or torch here before the module runs
graphs = []


def be(gm, example_inputs):
    graphs.append(1)
    return gm.forward


def plain(v):
    if isinstance(v, torch.Tensor):
        return ["T", [round(x, 4) for x in v.detach().reshape(-1).tolist()], list(v.shape)]
    if isinstance(v, (list, tuple)):
        return [plain(a) for a in v]
    return v


results = {}


def check(name, fn, inputs, read, between=None):
    """fn compiled, called on each input (between(i) runs before call i when given); outputs, what read()
    gives after, graphs."""
    graphs.clear()
    torch._dynamo.reset()
    cf = torch.compile(fn, backend=be)
    outs = []
    for i, a in enumerate(inputs):
        if between is not None:
            between(i)
        outs.append(plain(cf(*a)))
    results[name] = {"outs": outs, "state": plain(read()), "graphs": len(graphs)}


xs = [(torch.arange(3.0) + i,) for i in range(10)]


class Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(3)

    def forward(self, x):
        self.cache = self.cache + x
        return self.cache * 2


class Rnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(3, 3)
        with torch.no_grad():
            self.lin.weight.copy_(torch.arange(9.0).reshape(3, 3) / 10 - 0.4)
            self.lin.bias.fill_(0.1)
        self.h = None

    def forward(self, x):
        h = self.h if self.h is not None else torch.zeros(3)
        self.h = torch.tanh(self.lin(x) + h)
        return self.h.sum()


class Ema(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", torch.zeros(3))

    def forward(self, x):
        self.ema = self.ema * 0.5 + x
        return self.ema - 1


class Acc(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.acc = torch.zeros(3)

    def forward(self, x):
        self.acc.add_(x)
        return self.acc + 0


class State:
    def __init__(self):
        self.h = torch.ones(3)


def f_obj(x, st):
    st.h = st.h * 0.5 + x
    return st.h.sum()


W = torch.ones(3)


def f_read_global(x):
    return x * W


def set_w(i):
    global W
    if i == 3:
        W = torch.full((3,), 2.0)  # a new tensor, same metadata: the same graph, the new values
    elif i == 6:
        W = torch.ones(1)  # other sizes: a recompile


G = torch.zeros(3)


def f_rebind_global(x):
    global G
    G = G + x
    return G * 1


def make_cell():
    h = torch.zeros(3)

    def f(x):
        nonlocal h
        h = h * 0.5 + x
        return h + 0

    return f, lambda: h


class Weighted(torch.nn.Module):
    """A plain attribute that requires grad (not a Parameter): its gradient flows through the graph input."""

    def __init__(self):
        super().__init__()
        self.w = torch.ones(3, requires_grad=True)

    def forward(self, x):
        return (x * self.w).sum()


def run_all():
    results.clear()
    m = Cache()
    check("module attribute replaced each call", m, xs, lambda: m.cache)
    r = Rnn()
    check("RNN hidden state", r, xs, lambda: r.h)
    e = Ema()
    check("buffer reassigned", e, xs, lambda: [e.ema, sorted(dict(e.named_buffers()))])
    a = Acc()
    check("attribute written in place", a, xs, lambda: a.acc)
    st = State()
    check("attribute of an object argument", f_obj, [(x, st) for (x,) in xs], lambda: st.h)
    check("global tensor read", f_read_global, xs, lambda: W, set_w)
    global G
    G = torch.zeros(3)
    check("global tensor rebound", f_rebind_global, xs, lambda: G)
    f, read = make_cell()
    check("closure cell tensor rebound", f, xs, read)
    w = Weighted()
    check("backward inside the compiled function", lambda x: w(x).backward(), xs[:3], lambda: w.w.grad)
    w = Weighted()
    cw = torch.compile(w, backend=be)
    graphs.clear()
    for (x,) in xs[:3]:
        cw(x).backward()
    results["attribute that requires grad"] = {"state": plain(w.w.grad), "graphs": len(graphs)}
    return results
