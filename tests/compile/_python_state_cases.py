"""Compiled code reading and writing Python state beside its arguments (tensors held in dicts and lists, class
attributes, a global object's attributes, Python's random generator, writes through C functions, attributes
set to traced values), run by test_python_state.py under minitorch and under PyTorch: `torch` is set on this
module by whoever loads it, before it runs. ``run_all()`` gives, per case, the outputs, the state left behind and the number of graphs the
backend got."""

import array
import collections
import random

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
    if isinstance(v, dict):
        return {str(k): plain(a) for k, a in v.items()}
    if isinstance(v, float):
        return round(v, 6)
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


xs = [(torch.arange(3.0) + i,) for i in range(6)]


# ---- tensors held in dicts and lists: graph inputs guarded on their metadata, as attributes are
class DictState(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.state = {"h": torch.zeros(3), "n": 0}

    def forward(self, x):
        self.state["h"] = self.state["h"] * 0.5 + x
        return self.state["h"].sum()


S = {"h": torch.zeros(3)}


def f_global_dict(x):
    S["h"] = S["h"] + x
    return S["h"] * 2


R = {"w": torch.ones(3)}


def f_global_dict_read(x):
    return x * R["w"]


def set_r(i):
    if i == 3:
        R["w"] = torch.full((3,), 2.0)  # a new tensor of the same metadata: the same graph, its values read
    elif i == 5:
        R["w"] = torch.ones(1)  # other sizes: a recompile


L = [torch.zeros(3), torch.ones(3)]


def f_global_list(x):
    L[0] = L[0] + x * L[1]
    return L[0] - 1


# ---- a tensor class attribute, replaced between calls
class Table(torch.nn.Module):
    table = torch.arange(3.0)

    def forward(self, x):
        return x + self.table


def set_table(i):
    Table.table = torch.full((3,), float(i))


class Cfg:
    pass


cfg = Cfg()


def f_global_object_attr(x):
    return x * cfg.w


def set_cfg(i):
    cfg.w = torch.full((3,), float(i))


# ---- numbers that are graph inputs (automatic dynamic) steering an if: guarded on the branch taken
SCALE = 1.0


def f_float_global_branch(x):
    if SCALE > 0.5:
        return x * SCALE
    return x - SCALE


def set_scale(i):
    global SCALE
    SCALE = [1.0, 2.0, 3.0, 0.25, 0.125, 4.0][i]  # the fourth call takes the other branch


def f_number_argument_branch(x, n):
    if n > 2:
        return x * n
    return x + n


# ---- Python's random generator: random, randint and uniform are graph inputs drawn before each call
def f_random(x):
    return x * random.random() + random.randint(0, 10) + random.uniform(1, 2)


def f_random_branch(x):
    if random.random() > 0.5:  # Python control flow on a draw: a graph break
        return x + 1
    return x - 1


def f_random_other(x):
    return x + random.randrange(5)  # not replayed (as Dynamo): a graph break


# ---- writes through C functions: replayed on each call (or a graph break), never made once at capture
log = []
log_append = log.append
log_extend = log.extend


def f_bound_append(x):
    y = x * 2
    log_append(y.sum())
    return y


def f_bound_extend(x):
    log_extend([1, 2])
    return x + 1


D = {}


def f_dict_update(x):
    D.update(a=x + 1)
    return x * 2


dq = collections.deque()


def f_deque_append(x):
    dq.append(1)
    return x + 1


A = array.array("d")


def f_array_append(x):
    y = x + 1
    A.append(2.0)
    return y * 2


# ---- attributes set to traced values: no store is guarded, a read is
class Box:
    pass


box_new = Box()


def f_setattr_new(x):
    setattr(box_new, "v", x + 1)  # noqa: B010  (the builtin is what is tested)
    return x * 2


box_store = Box()


def f_store_new(x):
    box_store.v = x * 3
    return x - 1


box_init = Box()


def f_hasattr_lazy_init(x):
    if not hasattr(box_init, "acc"):  # the second call takes the other branch: a recompile
        box_init.acc = x * 0
    box_init.acc = box_init.acc + x
    return box_init.acc * 1


box_read = Box()
box_read.v = torch.zeros(3)


def f_store_after_read(x):
    y = x + box_read.v  # read, then replaced: a graph input guarded on its metadata
    box_read.v = y
    return y


def run_all():
    results.clear()
    m = DictState()
    check("dict attribute holding the state", m, xs, lambda: m.state)
    S["h"] = torch.zeros(3)
    check("global dict holding the state", f_global_dict, xs, lambda: S)
    check("global dict read, item replaced", f_global_dict_read, xs, lambda: R, set_r)
    L[0] = torch.zeros(3)
    check("global list holding the state", f_global_list, xs, lambda: L)
    Table.table = torch.arange(3.0)
    check("class attribute tensor replaced", Table(), xs, lambda: Table.table, set_table)
    check("global object's tensor attribute replaced", f_global_object_attr, xs, lambda: cfg.w, set_cfg)
    check("float global in an if", f_float_global_branch, xs, lambda: SCALE, set_scale)
    nums = [(x, n) for (x,), n in zip(xs, [3, 4, 5, 1, 0, 6])]
    check("number argument in an if", f_number_argument_branch, nums, lambda: None)
    random.seed(0)
    check("random.random, randint, uniform", f_random, xs, lambda: random.random())
    random.seed(1)
    check("random.random in an if", f_random_branch, xs, lambda: random.random())
    random.seed(2)
    check("random.randrange", f_random_other, xs, lambda: random.random())
    log.clear()
    check("list.append held as a value", f_bound_append, xs, lambda: log)
    log.clear()
    check("list.extend held as a value", f_bound_extend, xs, lambda: log)
    D.clear()
    check("dict.update", f_dict_update, xs, lambda: D)
    dq.clear()
    check("deque.append", f_deque_append, xs, lambda: list(dq))
    del A[:]
    check("array.append (a C method: graph break)", f_array_append, xs, lambda: list(A))
    box_new.__dict__.clear()
    check("setattr of a new attribute", f_setattr_new, xs, lambda: box_new.v)
    box_store.__dict__.clear()
    check("store of a new attribute", f_store_new, xs, lambda: box_store.v)
    box_init.__dict__.clear()
    check("hasattr before a lazy init", f_hasattr_lazy_init, xs, lambda: box_init.acc)
    box_read.v = torch.zeros(3)
    check("attribute read then stored", f_store_after_read, xs, lambda: box_read.v)
    return results
