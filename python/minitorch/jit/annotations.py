"""torch.jit.annotations: type annotations TorchScript reads; in eager Python they are plain typing."""

from typing import Any, Dict, List, Optional, Tuple  # noqa: F401, UP035  (the names TorchScript code imports)

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "annotate"]


class _BroadcastingList:
    def __getitem__(self, types):
        return List[types]  # noqa: UP006


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()


def annotate(the_type, the_value):
    """the_value (TorchScript reads the_type as its static type; eager Python ignores it)."""
    return the_value
