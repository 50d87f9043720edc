"""DataLoader: batches from a dataset, in the main process or in worker processes, as PyTorch's.

Work split: the main process runs the sampler and sends each batch's indices to a worker (round robin, at most
``prefetch_factor * num_workers`` outstanding); a worker fetches and collates the samples and sends the batch
back, its tensors through shared memory (``_utils/shared.py``); the main process hands batches out in
sampler order. Because the sampler always runs in the main process, ``num_workers=0`` and ``num_workers=2``
give the same batches for the same seed.

Start method: ``multiprocessing_context`` or multiprocessing's default (fork on Linux up to Python 3.13).
minitorch's CPU thread pool is fork-safe (a forked child rebuilds it). CUDA is not: a forked worker cannot
use CUDA (it raises, as in PyTorch), so a dataset that must touch the GPU needs the 'spawn' or 'forkserver'
context, which pickles the dataset, collate_fn and worker_init_fn into each worker.

Pinned memory: with ``pin_memory=True`` and CUDA available, each batch is copied into pinned host memory in
the main process as it is handed out (PyTorch uses a separate thread for this). Without CUDA it warns once
per iterator and returns ordinary batches, as PyTorch does.
"""

import itertools
import multiprocessing
import os
import queue
import secrets
import signal
import time
import warnings

from minitorch import cuda
from minitorch.utils.data._random import _check_generator, _draw_seed
from minitorch.utils.data._utils import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, shared
from minitorch.utils.data._utils.collate import default_collate, default_convert
from minitorch.utils.data._utils.fetch import _DatasetKind
from minitorch.utils.data._utils.pin_memory import pin_memory as _pin_memory
from minitorch.utils.data._utils.worker import (
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    get_worker_info,
)
from minitorch.utils.data.dataset import IterableDataset
from minitorch.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


class _InfiniteConstantSampler(Sampler):
    """The 'sampler' of an IterableDataset: None forever (the dataset decides when the stream ends)."""

    def __iter__(self):
        while True:
            yield None


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


class DataLoader:
    """Iterates over `dataset` in batches.

    Arguments as PyTorch's: ``batch_size`` (None turns automatic batching off), ``shuffle``, ``sampler``,
    ``batch_sampler``, ``num_workers``, ``collate_fn``, ``pin_memory``, ``drop_last``, ``timeout``,
    ``worker_init_fn``, ``multiprocessing_context``, ``generator``, ``prefetch_factor``,
    ``persistent_workers``. ``generator`` is a ``minitorch.Generator`` (or a ``numpy.random.Generator``);
    with None, shuffling and worker seeds come from minitorch's global generator, so
    ``minitorch.manual_seed`` makes a run reproducible. Worker i seeds Python's ``random``, NumPy's global
    RNG and minitorch with ``base_seed + i``, ``base_seed`` drawn once per iterator.
    """

    __initialized = False

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
    ):
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            # an IterableDataset decides its own order: samplers and shuffling do not apply
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )

        _check_generator(generator)
        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The multiprocessing context workers start with (None: multiprocessing's default)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid_start_methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(
                            "multiprocessing_context option should specify a valid start method in "
                            f"{valid_start_methods!r}, but got multiprocessing_context={multiprocessing_context!r}"
                        )
                    multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                    raise TypeError(
                        "multiprocessing_context option should be a valid context object or a string "
                        f"specifying the start method, but got multiprocessing_context={multiprocessing_context}"
                    )
            else:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        # changing these would silently desynchronize the sampler, batch sampler and live iterators
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the iterator draws from: lists of indices when batching automatically, single indices otherwise
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        # persistent workers: one iterator (and one set of workers) for the loader's lifetime, reset per epoch
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or self._iterator._shutdown:  # first epoch, or its workers were lost
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # the dataset's own length (TypeError if it has none), turned into batches; with several workers
            # each yields its share, which may make more batches than this, as in PyTorch
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warns when num_workers exceeds the CPUs this process may use (as PyTorch does)."""
        if self.num_workers == 0:
            return
        max_workers = _cpu_count()
        if max_workers is not None and self.num_workers > max_workers:
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested max "
                f"number of worker in current system is {max_workers}, which is smaller than what this "
                "DataLoader is going to create. Please be aware that excessive worker creation might get "
                "DataLoader running slow or even freeze, lower the worker number to avoid potential "
                "slowness/freeze if necessary.",
                stacklevel=3,
            )


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and not cuda.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=3,
            )
        self._pin_memory = loader.pin_memory and cuda.is_available()
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # drawn here for 0 workers too, so the global generator advances the same way whatever num_workers is
        self._base_seed = _draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration ends the epoch

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (
            self._dataset_kind == _DatasetKind.Iterable
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            warnings.warn(
                f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                f" (when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. "
                + (
                    "For multiprocessing data-loading, this could be caused by not properly configuring the "
                    "IterableDataset replica at each worker."
                    if self._num_workers > 0
                    else ""
                ),
                stacklevel=2,
            )
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self):
        index = self._next_index()
        data = self._dataset_fetcher.fetch(index)  # an IterableDataset's StopIteration ends the epoch
        if self._pin_memory:
            data = _pin_memory(data)
        return data


def _describe_exit(pid, exitcode):
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
            desc = signal.strsignal(-exitcode)
        except (ValueError, AttributeError):
            name, desc = str(-exitcode), "unknown signal"
        return f"DataLoader worker (pid {pid}) exited unexpectedly: killed by signal {name} ({desc})"
    return (
        f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {exitcode}. Details are lost due to "
        "multiprocessing. Rerunning with num_workers=0 may give better error trace."
    )


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers fetch and collate; this object keeps their queues full and returns batches in order.

    Bookkeeping (PyTorch's): ``_send_idx`` numbers the tasks sent, ``_rcvd_idx`` the next to return,
    ``_task_info[i]`` is ``(worker_id,)`` while task i is outstanding and ``(worker_id, data)`` once it arrived
    early. A worker whose IterableDataset ran out is marked inactive; its outstanding tasks are skipped.
    """

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._main_pid = os.getpid()
        self._shutdown = False
        self._workers = []
        self._index_queues = []
        self._workers_status = [True] * self._num_workers  # set before any worker starts: shutdown reads it
        self._shm_prefix = f"mtdl_{os.getpid()}_{secrets.token_hex(6)}_"
        self._free_segments = []  # (name, size) of files no tensor maps any more; sent back to workers
        self._free_by_worker = [[] for _ in range(self._num_workers)]
        shared.register(self._shm_prefix)
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                # indices still buffered when a worker dies must not block this process at exit
                index_queue.cancel_join_thread()
                w = ctx.Process(
                    target=_worker_loop,
                    args=(
                        self._dataset_kind,
                        self._dataset,
                        index_queue,
                        self._worker_result_queue,
                        self._workers_done_event,
                        self._auto_collation,
                        self._collate_fn,
                        self._drop_last,
                        self._base_seed,
                        loader.worker_init_fn,
                        i,
                        self._num_workers,
                        self._persistent_workers,
                        self._shm_prefix,
                    ),
                )
                w.daemon = True  # multiprocessing terminates daemonic workers when this process exits
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: every worker restarts its epoch and echoes _ResumeIteration; anything a worker
            # sent before its echo belongs to the previous (abandoned) epoch and is dropped
            for q in self._index_queues:
                q.put(_ResumeIteration())
            remaining = self._num_workers
            while remaining > 0:
                return_idx, _ = self._get_data()
                if isinstance(return_idx, _ResumeIteration):
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=MP_STATUS_CHECK_INTERVAL):
        """(True, message) if one arrives within `timeout`, else (False, None); raises if a worker died."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                msg = self._data_queue.get(timeout=max(0.0, min(remaining, MP_STATUS_CHECK_INTERVAL)))
                return True, shared.loads(msg, self._free_segments)
            except queue.Empty:
                pass
            # Nothing came: check on the workers, since a dead one will never answer. A worker marked inactive
            # (its IterableDataset ended) may have exited on purpose.
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if failed:
                msg = "; ".join(_describe_exit(w.pid, w.exitcode) for w in failed)
                self._shutdown_workers()
                raise RuntimeError(msg) from None
            if time.monotonic() >= deadline:
                return False, None

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        if self._shutdown:
            raise StopIteration  # the workers are gone (a worker died, or the epoch ended)
        while True:
            # skip tasks of workers that went inactive (their IterableDataset ended) and that never came back
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                # nothing outstanding: the epoch is over
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived earlier, out of order
                data = self._task_info.pop(self._rcvd_idx)[1]
                return self._process_data(data)

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(
                data, _IterableDatasetStopIteration
            ):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)  # keep it until its turn
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _try_put_index(self):
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, round robin
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                break
        else:
            return  # no active worker left
        # Files freed since then ride along, for the worker to write its next batches into. Each goes back to
        # the worker that made it (named <prefix>w<id>_<n>): handing them to whoever asks next would starve
        # one worker's pool while the other's overflows.
        while self._free_segments:  # pop one by one: a mapping may be dropped (appending) at any moment
            name, size = self._free_segments.pop()
            owner = int(name[len(self._shm_prefix) + 1 :].split("_", 1)[0])
            self._free_by_worker[owner].append((name, size))
        recycled, self._free_by_worker[worker_queue_idx] = self._free_by_worker[worker_queue_idx], []
        self._index_queues[worker_queue_idx].put((self._send_idx, index, recycled))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        if self._pin_memory:
            data = _pin_memory(data)
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # tells the worker to exit; it may still be draining earlier requests, which it will ignore
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        """Stops the workers (asking first, then terminating), closes the queues, removes leftover files."""
        if self._shutdown or os.getpid() != self._main_pid:
            return  # already done, or a forked copy of this object in another process
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    try:
                        self._mark_worker_as_unavailable(worker_id, shutdown=True)
                    except (OSError, ValueError):
                        pass
            deadline = time.monotonic() + MP_STATUS_CHECK_INTERVAL * 5
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()  # stuck in the user's code, or never got the message
            for w in self._workers:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL * 5)
            shared.sweep(self._shm_prefix)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown: modules may already be gone
            pass
