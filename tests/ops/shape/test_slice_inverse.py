"""torch.slice_inverse / Tensor.slice_inverse: the view of self's storage with src's geometry, its errors, and its
gradient (to self the slice, to src the rest), against PyTorch through the oracle."""

from utils import cases_here_and_in_pytorch

import minitorch

CASES = r"""
def cases(torch):
    def enc(r):
        return [list(r.shape), list(r.stride()), r.storage_offset(), r.detach().reshape(-1).tolist()]

    run = runner(enc)
    base = torch.arange(20.0).reshape(4, 5)
    s = base[1:3]
    out = {}
    out["rows"] = run(lambda: torch.slice_inverse(s, base, 0, 1, 3))
    out["defaults"] = run(lambda: torch.slice_inverse(s, base))
    out["cols"] = run(lambda: torch.slice_inverse(base[:, 1::2], base, 1, 1, None, 2))
    out["strided"] = run(lambda: torch.slice_inverse(base[:, 1::2], base[1:, ::2], 1, 1, None, 2))
    out["small"] = run(lambda: torch.slice_inverse(torch.zeros(2, 5), base, 0, 1, 3))
    out["dim"] = run(lambda: torch.slice_inverse(s, base, 5, 1, 3))
    out["method"] = run(lambda: s.slice_inverse(base, 0, 1, 3))
    out["kind"] = run(lambda: s.slice_inverse(base, 0, 1.5, 3))
    out["src"] = run(lambda: torch.slice_inverse(s, 3))
    out["empty"] = run(lambda: torch.slice_inverse(torch.zeros(0), torch.zeros(0, 3)))
    out["shares"] = torch.slice_inverse(s, base, 0, 1, 3).data_ptr() == base.data_ptr()

    def grad(view, sl):
        x = base.clone().requires_grad_()
        y = x * 2
        v = torch.slice_inverse(view(y), y, *sl)
        (v * torch.arange(20.0).reshape(4, 5)).sum().backward()
        return x.grad

    out["gradrows"] = run(lambda: grad(lambda y: y[1:3], (0, 1, 3)))
    out["gradcols"] = run(lambda: grad(lambda y: y[:, 1::2], (1, 1, None, 2)))

    def detached():
        x = base.clone().requires_grad_()
        torch.slice_inverse(x[1:3].detach(), x, 0, 1, 3).sum().backward()
        return x.grad

    out["graddetached"] = run(detached)
    return out
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for k in theirs:
        assert ours[k] == theirs[k], k
