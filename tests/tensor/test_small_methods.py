"""The small Tensor methods answered in C (bind_tensor.cpp's fast tables) against PyTorch: results, identity, errors."""

import pytest
from utils import cases_here_and_in_pytorch

import minitorch

# Each case is an expression over x (8x8 float32), xt (its transpose), d (float64), i (2x3 int64), p (a
# Parameter), r (a non-leaf); the result as repr, or the exception's type and first line
CASES = r"""
def grad_of_sum_to_size(torch):
    w = torch.arange(6.0, requires_grad=True)
    s = w.reshape(2, 3).sum_to_size(1, 3)
    (s * torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    return s.tolist(), w.grad.tolist(), s.grad_fn.name()


def cases(torch):
    x = torch.arange(64.0).reshape(8, 8); y = x + 1; xt = x.t(); d = x.double(); i = torch.ones(2, 3, dtype=torch.int64)
    p = torch.nn.Parameter(torch.ones(2, 2)); r = torch.ones(2, requires_grad=True) * 2
    exprs = '''x.ndimension()|xt.ndimension()|torch.tensor(1.).ndimension()|x.ndimension(1)|x.ndimension(a=1)|x.nelement()
    |torch.ones(0, 3).nelement()|x.nelement(1)|x[2:].storage_offset()|xt[1].storage_offset()|x.storage_offset(2)
    |x.is_conj()|x.is_neg()|x.is_conj(1)|x.is_neg(a=1)|x.is_distributed()|x.is_distributed(1)|x.is_signed()
    |i.is_signed()|torch.ones(1, dtype=torch.uint8).is_signed()|torch.ones(1, dtype=torch.bool).is_signed()|x.is_signed(1)
    |x.stride()|xt.stride()|x[:, ::2].stride()|torch.tensor(1.).stride()|x.stride(0)|xt.stride(-1)|x.stride(dim=1)
    |x.stride(None)|x.stride(2)|x.stride(-3)|x.stride(1.0)|x.stride(True)|x.stride('a')|x.stride(1, 2)|x.stride(d=1)
    |x.stride(2**70)|torch.tensor(1.).stride(0)|p.stride(0)
    |x.is_contiguous()|xt.is_contiguous()|x.is_contiguous(1)|x.is_contiguous(1, 2)
    |x.is_contiguous(memory_format=torch.channels_last)|x.is_contiguous(memory_format=torch.contiguous_format)
    |x.contiguous() is x|p.contiguous() is p|xt.contiguous().stride()|xt.contiguous() is xt|x.contiguous(1)
    |x.contiguous(a=1)|x.contiguous(memory_format=torch.contiguous_format) is x|xt.contiguous(torch.preserve_format)
    |x.requires_grad_() is x|x.requires_grad|x.requires_grad_(False) is x|x.requires_grad|x.requires_grad_(1)
    |x.requires_grad_(None)|x.requires_grad_(False, 1)|x.requires_grad_(requires_grad=True).requires_grad
    |i.requires_grad_()|i.requires_grad_(False) is i|r.requires_grad_(False)|r.requires_grad_(True) is r
    |p.requires_grad_(False) is p|p.requires_grad|x.requires_grad_(False) is x
    |x.is_same_size(y)|x.is_same_size(xt)|x.is_same_size(i)|x.is_same_size(1)|x.is_same_size()|x.is_same_size(x, x)
    |x.is_same_size(other=y)|x.is_same_size(x, other=x)|p.is_same_size(p)
    |x.type_as(y) is x|x.type_as(i).dtype|i.type_as(x).dtype|x.type_as(i).tolist() == x.tolist()|x.type_as(3)
    |x.type_as()|x.type_as(x, x)|x.type_as(other=x) is x|x.type_as(x, a=1)|x.type_as(x, other=x)|p.type_as(x) is p
    |x.new(2, 3).shape|x.new(2, 3).dtype|i.new(2).dtype|d.new(1, 0, 2).shape|x.new().shape|x.new(0).shape
    |x.new(-1)|x.new(2.0)|x.new(True)|x.new(2, True).shape|x.new((2, 3)).tolist()|x.new([1, 2]).tolist()
    |x.new(size=(2,)).shape|x.new(x).data_ptr() == x.data_ptr()|x.new(2, 'a')|x.new(a=1)|r.new(2).requires_grad
    |p.new(2).__class__.__name__|x.new(torch.tensor(2), 3).shape
    |x.sum_to_size(8, 8) is x|x.sum_to_size((8, 8)) is x|x.sum_to_size([8, 8]) is x
    |x.sum_to_size(torch.Size([8, 8])) is x|x.sum_to_size(1, 8).tolist()|x.sum_to_size(8).tolist()|x.sum_to_size()
    |x.sum_to_size(size=(8, 8)) is x|x.sum_to_size(3)|x.sum_to_size(8, 8, 8)|x.sum_to_size((8, 8), 1)
    |x.sum_to_size(8.0, 8)|x.sum_to_size(True, 8)|x.sum_to_size(8, 8.0)|x.sum_to_size(8, 8.0, 1)
    |x.sum_to_size((8.0, 8))|x.sum_to_size([8, 8.0])|x.sum_to_size(8.0)|x.sum_to_size(8, True).tolist()|x.sum_to_size(8, 'a')
    |i.sum_to_size(1, 3).tolist()|i.sum_to_size(3).dtype
    |torch.arange(24.).reshape(2, 3, 4).sum_to_size(3, 1).tolist()|torch.ones(2, 1, 4).sum_to_size(1, 4).tolist()
    |grad_of_sum_to_size(torch)|xt.sum_to_size(1, 8).tolist()|torch.tensor(2.).sum_to_size(())
    |xt.double().stride()|xt.type_as(d).stride()|xt.type_as(d).tolist() == xt.tolist()|i.float().tolist()|x.int().tolist() == x.tolist()
    |x.float() is x|x.double().dtype|d.double() is d|i.long() is i|i.int().dtype|x.bool().dtype|x.half().half().dtype
    |x.float(1)|x.double(1, 2)|x.float(a=1)|x.float(torch.preserve_format)|x.long(memory_format=torch.preserve_format).dtype
    |x.float(memory_format=torch.preserve_format) is x|p.float() is p
    |x.hsplit(2, 2)[0].shape|x.hsplit(2, 4)[1].tolist()|x.hsplit(2, 2.0)|x.hsplit(2, 'a')|x.hsplit([2], 2)
    |x.hsplit(2)[0].shape|x.vsplit(2, 4)[1].shape|torch.hsplit(x, 2, 2)|x.hsplit(2, True)[1].shape|x.dsplit(1, 2)
    |torch.ones(2, 2, 4).dsplit(1, 2)[1].shape|x.hsplit(-1, 2)[0].shape|x.hsplit(9, 20)[1].shape
    |x.tensor_split((2, 5), 1)[1].shape|torch.tensor_split(x, [1], 0)[1].shape|x.tensor_split(torch.tensor([1, 3]))[1].shape
    |x.tensor_split(torch.tensor(2))[0].shape|x.tensor_split(2.0)'''
    out = []
    for e in exprs.split('|'):
        e = e.strip()
        try:
            v = repr(eval(e)).replace('minitorch', 'torch')
        except Exception as exc:
            v = type(exc).__name__ + ': ' + (str(exc).splitlines() or [''])[0]
        out.append([e, v])
    return out
"""


def test_small_methods_match_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert len(ours) == len(theirs) > 150
    assert [o for o, t in zip(ours, theirs) if o != t] == []


def test_small_methods_fall_back_while_the_dispatch_is_on():
    # a transform's dispatch sends every call to the method each replaced; a tensor-like argument's
    # __torch_function__ is reached as from PyTorch's C++ methods
    seen = []

    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return "handled"

    x = minitorch.ones(2, 3)
    with minitorch.overrides.enable_torch_function_dispatch():
        assert x.type_as(Like()) == "handled"
        assert x.is_same_size(Like()) == "handled"
        assert x.stride() == (3, 1) and x.contiguous() is x and x.float() is x and x.new(2).shape == (2,)
    assert seen == ["type_as", "is_same_size"]
    assert x.stride() == (3, 1) and x.contiguous() is x


@pytest.mark.parametrize(
    "name", ["stride", "contiguous", "float", "new", "is_conj", "sum_to_size", "type_as"]
)
def test_small_methods_keep_the_replaced_docs(name):
    doc = getattr(minitorch.Tensor, name).__doc__
    assert doc and doc.strip()
