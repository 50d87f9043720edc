"""Functions with graph breaks, run by test_graph_break_split.py under minitorch and under PyTorch (the oracle of
explain()'s counts): `torch` is set on this module by whoever loads it, so one source serves both. Its
annotations are never evaluated (the split's generated code must compile with the function's own __future__
flags: nested_annotated)."""

from __future__ import annotations

import time

torch = None  # the loader sets minitorch or torch
COUNTER = [0]
SCALE = 2.0


def print_mid(x):
    y = x.sin()
    print("step")
    return y.cos() + 1


def print_tensor(x):
    y = x.sin() * 2
    print(y.sum())
    return y.cos() - x


def item_branch(x):
    y = x.sin()
    if y.sum().item() > 0:
        z = y * 2
    else:
        z = y - 1
    return z.exp()


def data_branch(x):
    y = x.sin()
    if y.sum() > 0:
        return y * 2
    return y - 1


def tolist_branch(x):
    y = x * 2
    v = y.tolist()
    if v[0] > 0:
        y = y + 1
    return y.relu()


def str_call(x):
    y = x + 1
    s = str(y)
    return y * len(s) * 0 + y * 2


def clock(x):
    y = x + 1
    t = time.time()
    return y * 2 + t * 0


def user_break(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def break_in_if_body(x, flag=True):
    y = x.sin()
    if flag:
        y = y + 1
        print("in")
        y = y * 3
    return y.cos()


def break_in_else(x, flag=False):
    y = x.sin()
    if flag:
        y = y - 1
    else:
        y = y + 1
        print("else")
        y = y * 3
    return y.cos() * 2


def two_prints(x):
    y = x.sin()
    print(1)
    y = y.cos() * 2
    print(2)
    return y.exp() + 1


def print_first(x):
    print("hi")
    return x.sin() + 1


def print_last(x):
    y = x.sin() + 1
    print("hi")
    return y


def loop_break(x):
    for i in range(3):
        x = x + 1
        print(i)
    return x * 2


def in_with(x):
    y = x.sin()
    with torch.no_grad():
        z = y * 2
        print("w")
        z = z + 1
    return y + z


def early_return(x, n=0):
    y = x * 2
    if n > 1:
        return y
    print("late")
    return y + n


def conditional_names(x, n=1):
    y = x * 2
    if n > 0:
        w = y + 1
    print("mid")
    if n > 0:
        return w * y
    return y


def uses_globals(x):
    global SCALE  # noqa: PLW0602  (declared, not assigned: the split guards the globals a function declares)
    y = x * SCALE
    print("g")
    COUNTER[0] += 1
    return y + SCALE


def make_closure():
    bias = [3.0]
    calls = 0

    def closure(x):
        nonlocal calls
        y = x + bias[0]
        calls = calls + int(y.sum().item() * 0) + 1
        return y * calls

    return closure


def varargs(x, *rest, scale=1.0, **opts):
    y = x * scale
    for r in rest:
        y = y + r
    print(len(rest), sorted(opts))
    return y * opts.get("k", 1)


def shapes_after_break(x):
    y = x.relu()
    print(y.shape)
    n = y.shape[0]
    return y.sum(0) / n


def user_error_after_break(x, w):
    y = x + 1
    print("before the error")
    return y @ w


def try_break(x):
    y = x + 1
    try:
        print("t")
        y = y * 2
    except ValueError:
        pass
    return y - 1


def loop_in_branch(x):
    y = x + 1
    if y.sum() > 0:
        for i in range(2):
            print(i)
            y = y + i
    return y * 2


def nested_return(x, n=0):
    y = x * 2
    print("a")
    if n > 1:
        return y
    print("b")
    return y + n


def nested_annotated(x):
    y = x * 2
    print("n")

    def inner(t: UndefinedType) -> UndefinedType:  # noqa: F821  (never evaluated: annotations are strings here)
        return t + 1

    return inner(y)


def in_set_grad(x, flag=False):
    y = x * 3
    with torch.set_grad_enabled(flag):
        z = y.sin()
        print("s")
        z = z * y
        w = z + 1
    return (w * y).sum()


# ---- a break in the middle of a statement: the work before the breaking call joins the previous graph
def mid_item(x):
    y = x * x.sum().item()
    return y + 1


def mid_float(x):
    return torch.relu(x) + float(x.max())


def mid_print(x):
    y = x.sin()
    z = y.cos() + (print("p") or 0) + y * 2
    return z


def mid_item_before(x):
    a = x.sin()
    y = a.cos() * a.sum().item() + a.exp()
    return y * 2


def two_breaks_one_stmt(x):
    y = x * x.sum().item() + x.max().item()
    return y


def mid_global(x):
    return x * SCALE + torch.tanh(x) * x.mean().item() + COUNTER[0]


def mid_kwargs(x):
    return torch.clamp(x.exp(), min=x.min().item(), max=3.0) - 1


def mid_print_tensor_arg(x):
    y = x + 1
    return y * 2 + (print(y.sum()) or 1)


def mid_multiline(x):
    # fmt: off
    y = x.sin() * (
        x.sum()
        .item()
    ) + x.cos()  # a method call over lines: Python places it from `.item` on
    # fmt: on
    return y


# ---- a break inside a function the compiled one calls: its frame is compiled on its own
def _helper_print(x):
    y = x.sin()
    print("g")
    return y.cos() * 3


def calls_helper(x):
    y = x + 1
    z = _helper_print(y)
    return z * 2


def _helper_item(x):
    s = x.sum().item()
    return x * s


def calls_item_helper(x):
    y = x.relu()
    z = _helper_item(y) + y
    return z.exp()


def _helper_mid(x):
    return x.cos() + float(x.sum())


def nested_helpers(x):
    return _helper_mid(x + 1) * 2


def _outer_helper(x):
    return _helper_item(x - 1) * 3


def helper_of_helper(x):
    y = x * 2
    return _outer_helper(y) + y


def make_block_model():
    class Block(torch.nn.Module):
        def forward(self, x):
            y = x.sin()
            print("b")
            return y * 2

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            h = x + 1
            return self.block(h) - 1

    return Outer()


def calls_module(x):
    return BLOCK_MODEL(x)


def make_scaled_model():
    class Proj(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 2

    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = Proj()

        def forward(self, x):
            h = x.relu()
            # self.proj is read before .item(): it stays in place (no user code runs in between)
            return self.proj(h * h.mean().item()) + 1

    return Scaled()


def mid_module_arg(x):
    return SCALED_MODEL(x)


BLOCK_MODEL = SCALED_MODEL = None  # the loader builds them once torch is set


# ---- what is not split mid-statement (the statement runs eagerly whole, the code around it compiled)
class Box:
    def __init__(self):
        self.scale = 1.0


class _Bumper:
    """A callable object (not a function: it runs as it is, not compiled as a frame)."""

    def __call__(self, box, x):
        print("bump")  # before the change: the capture that meets the print has changed nothing yet
        box.scale += 1.0
        return x * 0 + 1


_bump = _Bumper()


def attr_before_break(x, box):
    y = x.sin()
    z = (box.scale + _bump(box, x)) * y  # box.scale is read before _bump changes it: it cannot move after
    return z.cos()


def walrus_break(x):
    y = x + 1
    z = (s := y.sum()) * float(s)
    return z * y


def ifexp_break(x, flag=False):
    y = x * 2
    z = y if flag else y * float(y.sum())
    return z + 1


def _print_double(x):
    print("g")
    return x * 2


def _loop_print(x):
    for i in range(2):
        print(i)
        x = x + 1
    return x


def aug_helper(x):
    y = x + 1
    y += _print_double(x) * x.sum().item()
    return y


def kw_helper(x):
    return torch.clamp(x, min=_print_double(x).min().item())


def helper_twice(x):
    return _print_double(x) + _print_double(x * 3)  # one frame for both calls: its graphs compiled once


def loop_in_helper(x):
    y = x.cos()
    return _loop_print(y) * 2  # the helper's frame is skipped (a break in its loop): it runs eagerly


def closure_helper(x):
    scale = 2.0

    def inner(t):
        print("inner")
        return t * scale

    return inner(x.exp()) + scale
