"""torch.thread_safe_generator / torch.random.thread_safe_generator: None in the main process and in process
workers (minitorch's DataLoader has no thread workers), as PyTorch answers there (through the oracle)."""

from utils import cases_here_and_in_pytorch

import minitorch

CASES = r"""
def cases(torch):
    DataLoader, Dataset = torch.utils.data.DataLoader, torch.utils.data.Dataset

    class Probe(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return torch.tensor([float(torch.thread_safe_generator() is None)])

    out = {"main": torch.thread_safe_generator() is None, "module": torch.random.thread_safe_generator() is None}
    for workers in (0, 2):
        out[f"workers{workers}"] = [b.tolist() for b in DataLoader(Probe(), batch_size=2, num_workers=workers)]
    return out
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert ours == theirs
    assert ours["workers2"] == [[[1.0], [1.0]], [[1.0], [1.0]]]
