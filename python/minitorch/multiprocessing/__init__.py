"""minitorch.multiprocessing: Python's multiprocessing with tensors that cross processes through shared memory.

As torch.multiprocessing: everything of ``multiprocessing`` is re-exported; pickling reductions registered with
its ``ForkingPickler`` move a CPU tensor's storage into shared memory when it is sent (through a ``Queue``,
``Pipe`` or as an argument of a spawned ``Process``), so the receiver's tensor is the same memory as the
sender's; ``spawn``/``start_processes`` run a function in several processes and re-raise a child's error
with its traceback. CUDA tensors are sent as copies (PyTorch uses CUDA IPC handles; minitorch does not).
"""

import multiprocessing
from multiprocessing import *

from minitorch.multiprocessing.reductions import (
    get_all_sharing_strategies,
    get_sharing_strategy,
    init_reductions,
    set_sharing_strategy,
)
from minitorch.multiprocessing.spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

init_reductions()
