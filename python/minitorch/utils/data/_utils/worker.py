"""The DataLoader worker process: seeding, get_worker_info(), and the loop that fetches batches."""

import os
import queue
import random
from dataclasses import dataclass

import numpy as np

from minitorch import _C
from minitorch.utils.data._utils import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, shared
from minitorch.utils.data._utils.fetch import _DatasetKind

_worker_info = None


class WorkerInfo:
    """What a worker knows about itself: id, num_workers, seed and its copy of the dataset (read-only)."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset). In the main process: None.

    An IterableDataset's __iter__ uses it to give each worker its own share of the stream; a
    worker_init_fn uses it to configure the worker's copy of the dataset.
    """
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose IterableDataset is exhausted: the main process stops asking it for batches."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of each epoch after the first; they echo it back."""


class _ManagerWatchdog:
    """Tells a worker whether the process that started it is still there (its parent pid is unchanged)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _numpy_seed(base_seed, worker_id):
    # NumPy's global RNG would otherwise be the same in every forked worker (PyTorch seeds it too)
    return np.random.SeedSequence([worker_id, base_seed]).generate_state(4)


def _send(data_queue, idx, data, worker_id):
    # Pickled here rather than in the queue's feeder thread: there a pickling error is only printed and the
    # batch is lost, which would leave the main process waiting for it forever.
    try:
        msg = shared.dumps((idx, data))
    except Exception:  # noqa: BLE001 - whatever failed to pickle is reported to the main process
        if not isinstance(data, ExceptionWrapper):
            data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        try:
            msg = shared.dumps((idx, data))
        except Exception:  # noqa: BLE001 - e.g. an exception class defined where pickle cannot find it
            data.exc_type = RuntimeError  # re-raised as RuntimeError, with the original name and traceback
            msg = shared.dumps((idx, data))
    data_queue.put(msg)


def _worker_loop(
    dataset_kind,
    dataset,
    index_queue,
    data_queue,
    done_event,
    auto_collation,
    collate_fn,
    drop_last,
    base_seed,
    init_fn,
    worker_id,
    num_workers,
    persistent_workers,
    shm_prefix,
):
    watchdog = _ManagerWatchdog()
    try:
        # One thread per worker: the workers are the parallelism, and N workers x N pool threads would
        # oversubscribe the cores (PyTorch does the same).
        _C.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        _C.manual_seed(seed)
        np.random.seed(_numpy_seed(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        shared.set_prefix(f"{shm_prefix}w{worker_id}_")

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(
                dataset_kind, dataset, auto_collation, collate_fn, drop_last
            )
        except Exception:  # noqa: BLE001 - re-raised in the main process with the first batch
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # When an IterableDataset is exhausted the worker says so once, then ignores further requests until
        # the next epoch (persistent workers) or shutdown.
        iteration_end = False

        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                _send(data_queue, r, None, worker_id)
                iteration_end = False
                # a fresh fetcher (and so a fresh iterator over an IterableDataset) for the new epoch
                try:
                    fetcher = _DatasetKind.create_fetcher(
                        dataset_kind, dataset, auto_collation, collate_fn, drop_last
                    )
                except Exception:  # noqa: BLE001 - re-raised in the main process with the next batch
                    init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                continue
            if r is None:  # the main process asks us to exit
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or nothing left to give: drain requests until told to exit
            idx, index, recycled = r
            shared.recycle(recycled)
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:  # noqa: BLE001 - the user's error goes to the main process
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            _send(data_queue, idx, data, worker_id)
            del data, idx, index, r  # drop our references (and shared-memory mappings) before waiting
    except KeyboardInterrupt:
        pass  # the main process raises KeyboardInterrupt itself
    if not watchdog.is_alive():
        shared.sweep(shm_prefix)  # the main process died without cleaning up: nobody else will
    if done_event.is_set():
        # results nobody will read must not keep this process from exiting
        data_queue.cancel_join_thread()
        data_queue.close()
