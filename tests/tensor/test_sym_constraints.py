"""torch.sym_constrain_range, sym_constrain_range_for_size and sym_fresh_size on concrete sizes: the range check,
its message and the parser's refusals, against PyTorch through the oracle."""

from utils import cases_here_and_in_pytorch

import minitorch

CASES = r"""
def cases(torch):
    run = runner(lambda r: repr(r))
    R, S = torch.sym_constrain_range, torch.sym_constrain_range_for_size
    calls = {
        "inside": lambda: R(5, min=0, max=10),
        "below": lambda: R(5, min=6, max=10),
        "above": lambda: R(5, min=0, max=4),
        "open": lambda: R(5),
        "openmin": lambda: R(5, max=4),
        "openmax": lambda: R(5, min=6),
        "positional": lambda: R(5, 0, 10),
        "float": lambda: R(5.5, min=6),
        "tensor": lambda: R(torch.tensor(5), min=6),
        "bool": lambda: R(True, min=2),
        "str": lambda: R("a", min=6),
        "vector": lambda: R(torch.tensor([5, 6]), min=6),
        "floatmin": lambda: R(5, min=2.5),
        "size": lambda: S(5, min=0, max=10),
        "sizebelow": lambda: S(5, min=6),
        "sizeabove": lambda: S(5.0, max=4),
        "negative": lambda: S(-1),
        "zero": lambda: S(0),
        "fresh": lambda: torch.sym_fresh_size(5),
        "freshfloat": lambda: torch.sym_fresh_size(5.5),
        "freshbool": lambda: torch.sym_fresh_size(True),
    }
    return {k: run(f) for k, f in calls.items()}
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert ours == theirs
