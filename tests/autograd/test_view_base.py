"""Every view knows its base (Tensor._base, _is_view()) in every grad mode and of every dtype, and the in-place
writes PyTorch refuses through views (made under no_grad or inference mode, outputs of multi-output view ops,
detach_ of a view) are refused in PyTorch's words: tables of cases run here and under PyTorch 2.15."""

import pytest

import minitorch as torch
from tests.utils import cases_here_and_in_pytorch

# Each view op on a 2-d tensor `x`; the name keys the table.
VIEW_OPS = """
OPS = {
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "movedim": lambda x: x.movedim(0, 1),
    "view": lambda x: x.view(-1),
    "view_as": lambda x: x.view_as(x),
    "reshape (a view)": lambda x: x.reshape(12),
    "reshape (a copy)": lambda x: x.t().reshape(12),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "x[0]": lambda x: x[0],
    "select": lambda x: x.select(1, 2),
    "x[1:]": lambda x: x[1:],
    "x[:, ::2]": lambda x: x[:, ::2],
    "x[...]": lambda x: x[...],
    "x[None]": lambda x: x[None],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze(dim)": lambda x: x.unsqueeze(0).squeeze(0),
    "squeeze()": lambda x: x.squeeze(),
    "expand": lambda x: x[:, :1].expand(3, 5),
    "expand_as": lambda x: x.expand_as(x),
    "diagonal": lambda x: x.diagonal(),
    "as_strided": lambda x: x.as_strided((2,), (1,)),
    "unfold": lambda x: x.unfold(1, 2, 1),
    "split[0]": lambda x: x.split(2)[0],
    "split(list)[1]": lambda x: x.split([1, 2])[1],
    "chunk[1]": lambda x: x.chunk(2)[1],
    "unbind[1]": lambda x: x.unbind()[1],
    "tensor_split[0]": lambda x: x.tensor_split(2)[0],
    "hsplit[0]": lambda x: x.hsplit(2)[0],
    "view of a view": lambda x: x.t()[1],
    "x[0].flatten()": lambda x: x[0].flatten(),
    "detach": lambda x: x.detach(),
    "data": lambda x: x.data,
    "contiguous": lambda x: x.contiguous(),
    "clone": lambda x: x.clone(),
    "real (of a real tensor)": lambda x: x.real,
}
"""

TABLE = (
    VIEW_OPS
    + """
def cases(torch):
    out = {}
    grad = torch.randn(3, 4, requires_grad=True)
    for mode in ("grad", "no_grad", "inference_mode"):
        for kind in ("requires_grad", "float", "float64", "int64", "bool"):
            if kind == "requires_grad":
                base = grad
            elif kind == "bool":
                base = torch.arange(12).view(3, 4).clone() > 5
            else:
                base = torch.arange(12, dtype=getattr(torch, kind)).view(3, 4).clone()
            ctx = {"grad": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}[mode]
            for name, op in OPS.items():
                with ctx():
                    v = op(base)
                    inside = [v._is_view(), v._base is base, v.requires_grad]
                out[f"{mode} {kind} {name}"] = inside + [v._is_view(), v._base is base, v.requires_grad, v.is_leaf]
    return out
"""
)


def test_every_view_knows_its_base_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(TABLE, [("torch", torch)])
    assert ours.keys() == theirs.keys()
    assert {k: v for k, v in ours.items() if v != theirs[k]} == {}


COMPLEX = """
def cases(torch):
    c = torch.randn(3, 2, dtype=torch.complex64)
    r = torch.view_as_real(c)
    out = {}
    with torch.no_grad():
        n = c.real
    for name, v, base in (
        ("real", c.real, c),
        ("imag", c.imag, c),
        ("view_as_real", r, c),
        ("view_as_complex of view_as_real", torch.view_as_complex(r), c),
        ("real under no_grad", n, c),
        ("real of an int view", torch.arange(4)[1:].real, None),
    ):
        out[name] = [v._is_view(), base is not None and v._base is base]
    return out
"""


def test_complex_part_views_know_their_base():
    ours, theirs = cases_here_and_in_pytorch(COMPLEX, [("torch", torch)])
    assert ours == theirs


NOT_VIEWS = """
def cases(torch):
    out = {}
    for kind in ("requires_grad", "float", "no_grad"):
        a = torch.randn(4, 3, requires_grad=kind == "requires_grad").clone()
        for name, op in (
            ("a[[0, 1]]", lambda: a[[0, 1]]),
            ("a[a > 0]", lambda: a[a > 0]),
            ("index_select", lambda: a.index_select(0, torch.tensor([2, 0]))),
            ("sum keepdim", lambda: a.sum(1, keepdim=True)),
            ("max keepdim", lambda: a.max(1, keepdim=True)[0]),
            ("unsafe_split", lambda: a.unsafe_split(2)[1]),
            ("unsafe_chunk", lambda: torch.unsafe_chunk(a, 2)[0]),
            ("unsafe_split_with_sizes", lambda: torch.unsafe_split_with_sizes(a, [1, 3])[1]),
        ):
            if kind == "no_grad":
                with torch.no_grad():
                    v = op()
            else:
                v = op()
            r = [v._is_view(), v._base is a]
            try:
                v.add_(torch.ones(v.shape[-1], requires_grad=True))
                r.append("ok")
            except RuntimeError as e:
                r.append(str(e))
            out[f"{kind} {name}"] = r
    return out
"""


def test_results_of_other_ops_are_no_views():
    """Ops that are no view ops (index's plain op reshapes a temporary; the unsafe splits' parts share memory but
    are no views) hand back no view, in every mode, and their results take in-place writes."""
    ours, theirs = cases_here_and_in_pytorch(NOT_VIEWS, [("torch", torch)])
    assert ours == theirs


def test_view_of_an_inference_tensor_is_no_view():
    with torch.inference_mode():
        t = torch.randn(3)
        inside = t[1:]
    outside = t[1:]
    for v in (inside, outside):
        assert v._base is None and not v._is_view()


def test_base_kept_alive_and_root_of_chains():
    x = torch.arange(24).view(2, 3, 4).clone()
    with torch.no_grad():
        v = x[1].t()[::2].unsqueeze(0)
    del x
    assert v._base.shape == (2, 3, 4)  # the root, kept alive by its view
    assert v._base._base is None
    assert v._base[1].t()[::2].unsqueeze(0).tolist() == v.tolist()


# Each case returns a value or raises; the table compares the exception's type and message.
REFUSALS = """
def rg():
    return torch.randn(4, 3, requires_grad=True)

def nonleaf():
    return rg().clone()

def nograd(make, op=lambda b: b[:2]):
    base = make()
    with torch.no_grad():
        v = op(base)
    return base, v

def c_nograd_view_of_nonleaf_add_():
    _, v = nograd(nonleaf)
    v.add_(1)

def c_nograd_view_of_leaf_mul_():
    _, v = nograd(rg)
    v.mul_(2)

def c_nograd_view_of_plain_add_grad_value():
    _, v = nograd(lambda: torch.zeros(4, 3))
    v.add_(torch.ones(3, requires_grad=True))

def c_nograd_view_of_plain_copy_():
    _, v = nograd(lambda: torch.zeros(4, 3))
    v.copy_(torch.ones(2, 3, requires_grad=True))

def c_nograd_view_of_plain_setitem():
    _, v = nograd(lambda: torch.zeros(4, 3))
    v[0] = torch.ones(3, requires_grad=True)

def c_nograd_row_copy_():
    _, v = nograd(lambda: torch.zeros(2, 3), lambda b: b[0])
    v.copy_(torch.ones(3, requires_grad=True))

def c_nograd_view_of_plain_add_plain():
    b, v = nograd(lambda: torch.zeros(4, 3))
    v.add_(1)
    return [b.sum().item(), v._base is b]

def c_nograd_view_of_rg_under_no_grad_add_():
    b, v = nograd(rg)
    with torch.no_grad():
        v.add_(1)
    return v._base is b

def c_nograd_view_requires_grad():
    b, v = nograd(rg)
    return [v.requires_grad, v.is_leaf, v.grad_fn is None]

def c_nograd_view_backward():
    b, v = nograd(rg)
    s = (v * 2).sum()
    s.backward()
    return [s.requires_grad, b.grad is None]

def c_nograd_view_autograd_grad():
    b, v = nograd(rg)
    return [g is None for g in torch.autograd.grad((v * 2).sum(), b, allow_unused=True)]

def c_nograd_view_base_written_then_used():
    b, v = nograd(nonleaf)
    b.mul_(2)
    return (v * 2).sum().requires_grad

def c_nograd_view_base_written_then_grad_fn():
    b, v = nograd(nonleaf)
    b.mul_(2)
    return v.grad_fn is None

def c_nograd_view_base_written_under_no_grad():
    b, v = nograd(rg)
    with torch.no_grad():
        b.mul_(2)
    return (v * 2).sum().requires_grad

def c_nograd_view_of_plain_base_written():
    b, v = nograd(lambda: torch.zeros(4, 3))
    b.add_(1)
    return [v.grad_fn is None, (v * 2).requires_grad]

def c_grad_view_of_nograd_view():
    b, v = nograd(nonleaf)
    w = v[0:1]
    return [w._base is b, w.requires_grad, w.grad_fn is not None]

def c_grad_view_of_nograd_view_add_():
    _, v = nograd(nonleaf)
    v[0:1].add_(1)

def c_grad_view_of_nograd_view_transpose_add_():
    _, v = nograd(nonleaf)
    v.transpose(0, 1).add_(1)

def c_split_add_():
    nonleaf().split([2, 2])[0].add_(1)

def c_unbind_mul_():
    nonleaf().unbind()[1].mul_(2)

def c_split_of_plain_add_grad_value():
    torch.zeros(4, 3).split([2, 2])[1].add_(torch.ones(3, requires_grad=True))

def c_split_of_plain_add_plain():
    b = torch.zeros(4, 3)
    b.split([2, 2])[1].add_(1)
    return b.sum().item()

def c_nograd_split_add_():
    _, v = nograd(nonleaf, lambda b: b.split([2, 2])[0])
    v.add_(1)

def c_view_of_split_add_():
    nonleaf().split([2, 2])[1][0:1].add_(1)

def c_view_of_unbind_add_():
    nonleaf().unbind()[1].unsqueeze(0).add_(1)

def c_split_base_written_then_grad_fn():
    b = nonleaf()
    p = b.split([2, 2])[0]
    b.mul_(2)
    return p.grad_fn is None

def c_split_written_under_no_grad_then_grad_fn():
    b = rg()
    p = b.unbind()[0]
    with torch.no_grad():
        p.mul_(2)
    return p.grad_fn is None

def c_split_of_plain_base_written():
    b = torch.zeros(4, 3)
    p = b.split([2, 2])[0]
    b.add_(1)
    return p.grad_fn is None

def c_inference_view_add_in_normal_mode():
    b = nonleaf()
    with torch.inference_mode():
        v = b[:2]
    v.add_(1)

def c_inference_view_of_plain_add_():
    b = torch.zeros(3)
    with torch.inference_mode():
        v = b[:2]
    v.add_(1)
    return [v._base is b, b.tolist()]

def c_view_of_leaf_add_():
    rg()[:2].add_(1)

def c_leaf_add_():
    rg().add_(1)

def c_nograd_view_t_():
    b, v = nograd(lambda: torch.zeros(4, 3))
    v.t_()
    return [v._base is b, list(v.shape)]

def detach_(make):
    t = make()
    t.detach_()
    return [t._base is not None, t.requires_grad, t.grad_fn is None]

def c_detach__grad_view_of_leaf():
    return detach_(lambda: rg()[:2])

def c_detach__grad_view_of_nonleaf():
    return detach_(lambda: nonleaf()[:2])

def c_detach__view_of_plain():
    return detach_(lambda: torch.zeros(3)[:2])

def c_detach__view_of_int():
    return detach_(lambda: torch.arange(3)[:2])

def c_detach__nograd_view():
    return detach_(lambda: nograd(rg)[1])

def c_detach__split_piece():
    return detach_(lambda: torch.zeros(4).split(2)[0])

def c_detach__view_inside_no_grad():
    v = rg()[:2]
    with torch.no_grad():
        v.detach_()

def c_detach__inference_mode_view():
    b = torch.zeros(3)
    with torch.inference_mode():
        v = b[:2]
    v.detach_()

def c_detach__nonview():
    return detach_(lambda: rg() * 2)

def c_detach__detached():
    return detach_(lambda: rg().detach())

def c_copy_slices_still_work():
    x = torch.ones(3, requires_grad=True)
    out = torch.zeros(2, 3)
    out[0] = x * 2
    out.sum().backward()
    return x.grad.tolist()

def c_view_then_inplace_in_grad_mode():
    x = torch.ones(3, requires_grad=True)
    h = x * 1
    v = h[:2]
    v.mul_(3)
    h.sum().backward()
    return x.grad.tolist()

def c_nograd_view_of_nonleaf_t_():
    _, v = nograd(nonleaf)
    v.t_()

def c_int_view_t_then_view():
    b = torch.arange(6).view(2, 3).clone()
    v = b[1:]
    v.t_()
    w = v[0]
    return [v._base is b, w._base is b, v.tolist(), w.tolist()]

def c_nograd_view_t_then_write_with_grad_value():
    b, v = nograd(lambda: torch.zeros(4, 3))
    v.t_()
    v.copy_(torch.ones(3, 2, requires_grad=True))

def c_as_strided_view_copy_slices():
    x = torch.arange(3.0, requires_grad=True)
    out = torch.zeros(2, 3)
    out.as_strided((3,), (1,), 3).copy_(x * 2)
    out.sum().backward()
    return [out.tolist(), x.grad.tolist()]

def c_view_of_as_strided_view_copy_slices():
    x = torch.arange(3.0, requires_grad=True)
    out = torch.zeros(2, 3)
    out.as_strided((2, 3), (3, 1))[1].copy_(x * x)
    (out * torch.arange(6.0).view(2, 3)).sum().backward()
    return [out.tolist(), x.grad.tolist()]

def c_nograd_view_base_gains_grad():
    b = torch.zeros(4, 3)
    with torch.no_grad():
        v = b[:2]
    b.requires_grad_()
    h = b * 1
    return [v.requires_grad, v.grad_fn is None, h.requires_grad]

def c_int_view_version_shared():
    b = torch.arange(4)
    v = b[1:]
    v.add_(1)
    b.mul_(2)
    return [b._version, v._version, b.tolist()]

def c_nograd_view_version_shared():
    b, v = nograd(lambda: torch.zeros(4, 3))
    v.add_(1)
    b[0] = 2
    return [b._version, v._version]

def cases(torch_module):
    global torch
    torch = torch_module
    out = {}
    for name, fn in sorted(globals().items()):
        if not name.startswith("c_"):
            continue
        try:
            out[name] = ["ok", fn()]
        except Exception as e:
            out[name] = [type(e).__name__, str(e)]
    return out
"""


def test_refusals_of_inplace_writes_through_views_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(REFUSALS, [("torch", torch)])
    assert ours.keys() == theirs.keys()
    assert {k: v for k, v in ours.items() if v != theirs[k]} == {}


def test_refusal_messages_without_the_oracle():
    a = torch.randn(3, requires_grad=True).clone()
    with torch.no_grad():
        v = a[:2]
    with pytest.raises(
        RuntimeError, match=r"^A view was created in no_grad mode and is being modified inplace"
    ):
        v.add_(1)
    with pytest.raises(
        RuntimeError, match=r"^Output 1 of Unbind is a view and is being modified inplace\. This"
    ):
        a.unbind()[1].mul_(2)
    with pytest.raises(RuntimeError, match=r"^Can't detach views in-place\. Use detach\(\) instead\."):
        torch.arange(3)[1:].detach_()
    # nothing that autograd records: allowed, and the base sees the write
    b = torch.zeros(4)
    with torch.no_grad():
        w = b[:2]
    w.add_(1)
    b.split(2)[1].add_(2)
    assert b.tolist() == [1.0, 1.0, 2.0, 2.0]
