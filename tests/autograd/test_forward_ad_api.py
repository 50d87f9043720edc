"""torch.autograd.forward_ad's API against PyTorch: argument checks and words, levels, repr, views and in-place."""

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD

# The same source runs on minitorch and on PyTorch (the oracle); each case's result is made JSON by `js`, which
# records tensors with their tangent (or that they have none) and exceptions with their type and words.
CASES = r"""
def cases(torch, fwAD):
    def js(x):
        if isinstance(x, BaseException):
            return {"exc": type(x).__name__, "msg": str(x)}
        if isinstance(x, torch.Tensor):
            p, t = fwAD.unpack_dual(x)
            return {"p": p.tolist(), "t": None if t is None else t.tolist()}
        if isinstance(x, (list, tuple)):
            return [js(y) for y in x]
        return x

    def run(f):
        try:
            with fwAD.dual_level():
                return js(f())
        except Exception as e:
            return js(e)

    def run_nolevel(f):
        try:
            return js(f())
        except Exception as e:
            return js(e)

    ones, zeros, ar = torch.ones, torch.zeros, torch.arange
    md, ud = fwAD.make_dual, fwAD.unpack_dual
    out = {}
    # make_dual's checks
    out["shape"] = run(lambda: md(ones(3), ones(2)))
    out["int_primal"] = run(lambda: md(ones(3, dtype=torch.int64), ones(3)))
    out["int_tangent"] = run(lambda: md(ones(3), ones(3, dtype=torch.int64)))
    out["bool_primal"] = run(lambda: md(ones(3, dtype=torch.bool), ones(3)))
    out["list_primal"] = run(lambda: md([1.0], ones(1)))
    out["no_level"] = run_nolevel(lambda: md(ones(3), ones(3)))
    out["level0_no_level"] = run_nolevel(lambda: md(ones(2), ones(2), level=0))
    out["level1_in_level0"] = run(lambda: md(ones(2), ones(2), level=1))
    out["twice"] = run(lambda: md(md(ones(2), ones(2)), ones(2)))
    out["tangent_layout"] = run(lambda: list(ud(md(ones(2, 3), ar(6.0).view(3, 2).t())).tangent.stride()))
    # unpack_dual and levels
    out["unpack_fields"] = run(lambda: list(ud(md(ones(2), zeros(2)))._fields))
    out["unpack_namedtuple"] = run(lambda: [type(ud(ones(2))).__mro__[1].__name__, ud(ones(2))[1]])
    out["unpack_no_level"] = run_nolevel(lambda: ud(ones(2), level=0))
    out["unpack_level1_of_dual"] = run(lambda: ud(md(ones(2), ones(2)), level=1))
    out["unpack_level3_of_plain"] = run(lambda: ud(ones(2), level=3))
    out["unpack_none"] = run(lambda: ud(None))
    out["unpack_non_tensor_no_level"] = run_nolevel(lambda: list(ud(3.0)))
    out["nested"] = run(lambda: fwAD.enter_dual_level())
    out["exit_no_level"] = run_nolevel(lambda: fwAD.exit_dual_level())

    def exit_wrong():
        fwAD.enter_dual_level()
        try:
            fwAD.exit_dual_level(level=5)
        finally:
            fwAD.exit_dual_level()

    out["exit_wrong"] = run_nolevel(exit_wrong)
    out["repr"] = run(lambda: [
        repr(md(ones(2, 3), zeros(2, 3))),
        repr(md(ones(2, 3, dtype=torch.float64), zeros(2, 3, dtype=torch.float64))),
        repr(md(torch.tensor(1.0), torch.tensor(2.0))),
        str(md(ones(2), zeros(2))),
    ])

    # views share their base's tangent; in-place ops write it in place
    def given_tangent_written():
        t = torch.tensor([1.0, 2.0, 3.0])
        d = md(ones(3), t)
        d.mul_(3)
        return [t, ud(d).tangent is t]

    def view_chain():
        d = md(zeros(4), ar(4.0))
        v = d[1:3]
        v.view(2, 1).mul_(md(torch.full((2, 1), 2.0), ones(2, 1)))
        return [d, v]

    def base_to_view():
        d = md(zeros(2, 3), ar(6.0).view(2, 3))
        v, row = d.t(), d[0]
        d.add_(md(ones(2, 3), ones(2, 3)))
        return [v, row]

    def setitem_then_zero():
        d = md(zeros(2, 3), ar(6.0).view(2, 3))
        v = d[0]
        d[1] = md(ones(3), ones(3) * 7)
        v.zero_()
        return d

    def copy_plain():
        d = md(zeros(3), ones(3))
        v = d[:2]
        d.copy_(ones(3))
        return [v, d]

    def diagonal_unbind():
        d = md(zeros(2, 2), ones(2, 2))
        d.diagonal().mul_(md(zeros(2), torch.tensor([5.0, 6.0])))
        a, b = d.unbind(0)
        b.sub_(md(zeros(2), torch.tensor([5.0, 6.0])))
        d[:, 1:].clamp_(min=1.0)
        return [d, a]

    def not_a_view():  # a result that is not a view keeps its own tangent when its input's changes
        d = md(zeros(3), ones(3))
        e = d + 1
        f = d.contiguous()  # a view (itself): follows
        d.mul_(md(ones(3), ones(3)))
        e.mul_(2)
        return [d, e, f]

    for f in (given_tangent_written, view_chain, base_to_view, setitem_then_zero, copy_plain, diagonal_unbind,
              not_a_view):
        out[f.__name__] = run(f)

    x, v = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, -1.0, 2.0])

    def inference_mode():  # turns forward AD off
        d = md(x, v)
        with torch.inference_mode():
            return [d.sin(), d.mul_(2)]

    def out_kwarg():
        return torch.sin(md(x, v), out=torch.empty(3))

    def func_grad_of_dual():  # forward over func.grad: no graph where nothing required grad
        g = torch.func.grad(lambda a: (a ** 3).sum())(md(x, v))
        return [g, ud(g).primal.requires_grad, ud(g).tangent.requires_grad]

    for f in (inference_mode, out_kwarg, func_grad_of_dual):
        out[f.__name__] = run(f)

    def containers():  # the forward-mode jacobian returns lists where the inputs were a tuple
        AF = torch.autograd.functional
        e = torch.ones(3, dtype=torch.float64)
        res = []
        for fn, inp in [(lambda a, b: (a * b, a.sum()), (e, e)), (lambda a: (a * 2, a.sum()), e),
                        (lambda a, b: a * b, (e, e)), (lambda a: a * 2, (e,)), (lambda a: a * 2, e)]:
            j = AF.jacobian(fn, inp, vectorize=True, strategy="forward-mode")
            res.append([type(j).__name__, type(j[0]).__name__])
        h = AF.hessian(lambda a, b: (a * b * a).sum(), (e, e), vectorize=True, outer_jacobian_strategy="forward-mode")
        return res + [[type(h).__name__, type(h[0]).__name__]]

    out["containers"] = run_nolevel(containers)
    return out
"""


def test_forward_ad_api_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", torch), ("torch.autograd.forward_ad", fwAD)])
    for name, expect in theirs.items():
        assert ours[name] == expect, name


def test_in_place_on_a_view_reaches_the_base_tangent():
    # the same rule without PyTorch: the base's tangent is written through the view's
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.zeros(4, dtype=torch.float64), torch.arange(4.0, dtype=torch.float64))
        v = d[1:3]
        v.mul_(fwAD.make_dual(torch.full((2,), 2.0, dtype=torch.float64), torch.ones(2, dtype=torch.float64)))
        # d = 0 + eps * t; d[1:3] *= (2 + eps): its tangent becomes 2 t[1:3] + d[1:3] (0 here)
        np.testing.assert_array_equal(fwAD.unpack_dual(d).tangent.numpy(), [0.0, 2.0, 4.0, 3.0])
        w = d.view(2, 2)
        d.add_(fwAD.make_dual(torch.ones(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)))
        np.testing.assert_array_equal(fwAD.unpack_dual(w).tangent.numpy(), [[1.0, 3.0], [5.0, 4.0]])


def test_result_that_is_not_a_view_does_not_share_its_inputs_tangent():
    t = torch.ones(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.zeros(3), t)
        e = d + 1  # add's tangent is d's own; an in-place op on e must not write it
        e.mul_(2)
        assert fwAD.unpack_dual(e).tangent.tolist() == [2.0, 2.0, 2.0]
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_unpacked_dual_tensor_is_a_named_tuple():
    u = fwAD.UnpackedDualTensor(1, None)
    assert u.primal == 1 and u.tangent is None and tuple(u) == (1, None)
    assert type(u).__mro__[1] is tuple


def test_repr_puts_the_tangent_last():
    with fwAD.dual_level():
        assert (
            repr(fwAD.make_dual(torch.ones(2), torch.zeros(2)))
            == "tensor([1., 1.], tangent=tensor([0., 0.]))"
        )
        assert repr(fwAD.make_dual(torch.tensor(1.0), torch.tensor(2.0))) == "tensor(1., tangent=2.0)"


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: fwAD.make_dual([1.0], torch.ones(1)), AttributeError, "'list' object has no attribute"),
        (lambda: fwAD.unpack_dual(fwAD.make_dual(torch.ones(1), torch.ones(1)), level=1), RuntimeError,
         "Invalid level given to _fw_primal"),
    ],
)  # fmt: skip
def test_bad_arguments_raise_pytorchs_errors(call, exc, words):
    with fwAD.dual_level(), pytest.raises(exc, match=words):
        call()


def test_make_dual_at_a_level_that_was_never_entered():
    with pytest.raises(RuntimeError, match="Trying to access a forward AD level with an invalid index"):
        fwAD.make_dual(torch.ones(2), torch.ones(2), level=0)
