"""torch.distributed's process groups and collectives over the Gloo (CPU) and NCCL (CUDA) backends."""

import enum
import os
import pickle
import queue
import socket
import threading
import time
import urllib.parse
from concurrent.futures import Future
from datetime import timedelta
from typing import ClassVar

from minitorch import _C, _creation, cuda
from minitorch.autograd import grad_mode

from .store import DistError, DistStoreError, FileStore, PrefixStore, Store, TCPStore

_dist = _C._distributed

default_pg_timeout = timedelta(minutes=30)

_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """A backend name, lower-cased and validated: 'gloo', 'nccl', 'undefined' (init_process_group() without
    one), or a per-device string such as 'cpu:gloo,cuda:nccl'."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    backend_list: ClassVar[list] = [UNDEFINED, GLOO, NCCL]
    # what backend=None means, as PyTorch's; the cuda half only where CUDA and NCCL are present
    default_device_backend_map: ClassVar[dict] = {"cpu": GLOO, "cuda": NCCL}
    # the devices a backend named alone serves (Gloo reaches CUDA tensors through host copies)
    backend_capability: ClassVar[dict] = {GLOO: ["cpu", "cuda"], NCCL: ["cuda"]}

    def __new__(cls, name):
        if not isinstance(name, str):
            # ValueError, not TypeError: PyTorch's words and type
            raise ValueError("Backend constructor parameter must be string-ish")  # noqa: TRY004
        value = name.lower()
        if ":" in value:
            BackendConfig(value)  # validates every device:backend pair
        elif value not in cls.backend_list:
            raise ValueError(f"Invalid backend: '{name}'")
        return str.__new__(cls, value)


class BackendConfig:
    """The backend each device type uses in a group (PyTorch's BackendConfig)."""

    def __init__(self, backend):
        self.device_backend_map = {}
        backend = str(backend).lower()
        if backend == Backend.UNDEFINED:
            for device, name in Backend.default_device_backend_map.items():
                if name == Backend.NCCL and not (is_nccl_available() and cuda.is_available()):
                    continue  # no cuda:nccl half without CUDA (PyTorch 2.3+)
                self.device_backend_map[device] = Backend(name)
        elif ":" not in backend:
            self.device_backend_map = dict.fromkeys(Backend.backend_capability[backend], Backend(backend))
        else:
            help_ = (
                f"The custom backend string argument is invalid: {backend}. Custom backend string is an "
                'experimental feature where the backend string must be in the format: "<device_type1>:<backend1>,'
                "<device_type2>:<backend2>...\". e.g. 'cpu:gloo,cuda:nccl'"
            )
            for pair in backend.split(","):
                parts = pair.split(":")
                if len(parts) != 2:
                    raise ValueError(f"Invalid device:backend pairing: {pair}. {help_}")
                device, name = parts
                if device not in ("cpu", "cuda"):
                    raise ValueError(f"Invalid device:backend pairing: {pair}. {help_}")
                if device in self.device_backend_map:
                    raise ValueError(f"Duplicate device type {device} in backend string: {backend}. {help_}")
                if name not in (Backend.GLOO, Backend.NCCL):
                    raise ValueError(f"Invalid backend: '{name}'")
                if device not in Backend.backend_capability[name]:
                    raise ValueError(f"Backend {name} does not support device type {device}")
                self.device_backend_map[device] = Backend(name)

    def get_device_backend_map(self):
        return self.device_backend_map

    def __repr__(self):
        return ",".join(f"{device}:{name}" for device, name in self.device_backend_map.items())


class ReduceOp(enum.IntEnum):
    """Values as torch.distributed.ReduceOp's."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4


def is_available():
    return True


def is_gloo_available():
    return _dist.is_gloo_available()


def is_nccl_available():
    return _dist.is_nccl_available()


class Work:
    """The handle async_op=True returns: wait() blocks until the collective finished and re-raises its error."""

    def __init__(self, future):
        self._future = future

    def wait(self, timeout=None):
        self._future.result(None if timeout is None else _secs(timeout))
        return True

    def is_completed(self):
        return self._future.done()

    def is_success(self):
        return self._future.done() and self._future.exception() is None

    def exception(self):
        return self._future.exception() if self._future.done() else None

    def get_future(self):
        return self._future

    def result(self):
        return self._future.result()


def _secs(t):
    return t.total_seconds() if isinstance(t, timedelta) else float(t)


class _Worker:
    """One daemon thread per group runs its Gloo collectives in issue order (the C++ call drops the GIL)."""

    def __init__(self, name):
        self._q = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            item = self._q.get()
            if item is None:
                return
            fut, fn = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits on the Work
                fut.set_exception(e)

    def submit(self, fn):
        fut = Future()
        self._q.put((fut, fn))
        return fut

    def stop(self):
        self._q.put(None)


class ProcessGroup:
    """A set of ranks and one engine per backend its device types use; ranks passed to collectives are global.

    Engines are made at construction, except the nccl half of a mixed 'cpu:gloo,cuda:nccl' group: it connects
    on the first CUDA collective (every rank issues that one too), so a CPU-only program never touches CUDA."""

    def __init__(self, backend, config, ranks, global_rank, store, timeout, master_addr=None):
        self._backend = backend
        self._config = config
        self._ranks = list(ranks)
        self._global_rank = global_rank
        self._rank = self._ranks.index(global_rank)
        self._store = store  # engines rendezvous under <store>/<backend>/
        self._timeout = timeout
        self._master_addr = master_addr
        self._engines = {}
        self._destroyed = False
        self._monitored_calls = 0
        names = set(config.get_device_backend_map().values())
        self._worker = _Worker("minitorch-gloo-pg") if Backend.GLOO in names else None
        self._lock = threading.Lock()
        self._pending = 0  # async ops submitted to the worker and not finished

    def _connect_eager(self):
        names = list(dict.fromkeys(self._config.get_device_backend_map().values()))
        eager = names if len(names) == 1 else [n for n in names if n != Backend.NCCL]
        for name in eager:
            self._engine(name)

    def rank(self):
        return self._rank

    def size(self):
        return len(self._ranks)

    def name(self):
        return str(self._backend)

    def _engine_name(self, device_type):
        name = self._config.get_device_backend_map().get(device_type)
        if name is None:
            raise RuntimeError(f"No backend type associated with device type {device_type}")
        return name

    def _engine(self, name):
        impl = self._engines.get(name)
        if impl is None:
            impl = _make_impl(
                name,
                PrefixStore(name, self._store),
                self._rank,
                self.size(),
                self._timeout,
                self._master_addr,
            )
            self._engines[name] = impl
        return impl

    def _for(self, tensor):
        """(engine, backend name) for a collective on tensor's device."""
        name = self._engine_name(tensor.device.type)
        return self._engine(name), name

    def _barrier_engine(self):
        # Gloo where the group has it: a barrier need not bring up NCCL
        names = self._config.get_device_backend_map()
        return self._engine(names.get("cpu") or next(iter(names.values())))

    def _group_rank(self, global_rank, what):
        if global_rank not in self._ranks:
            raise ValueError(f"Group rank {what} {global_rank} is not part of group {self._ranks}")
        return self._ranks.index(global_rank)

    def _run(self, fn, async_op, engine=Backend.GLOO):
        if engine != Backend.GLOO or self._worker is None:
            # NCCL enqueues on the caller's current stream, which is per thread: run it here.
            fut = Future()
            try:
                fut.set_result(fn())
            except BaseException as e:
                if not async_op:
                    raise
                fut.set_exception(e)
            return Work(fut) if async_op else fut.result()
        with self._lock:
            if not async_op and self._pending == 0:
                # nothing queued: run here and skip the thread handoff (a millisecond on a busy machine);
                # holding the lock keeps later async ops behind this one
                return fn()
            self._pending += 1
        fut = self._worker.submit(fn)
        fut.add_done_callback(self._done)
        if async_op:
            return Work(fut)
        return fut.result()

    def _done(self, fut):
        with self._lock:
            self._pending -= 1

    def _shutdown(self):
        if self._worker is not None:
            self._worker.stop()
        self._engines = {}
        self._destroyed = True


class _GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


GroupMember = _GroupMember
group = _GroupMember  # torch.distributed.group.WORLD
_state = threading.local()  # unused: groups are per process, as PyTorch's
_default_pg = None
_groups = []
_group_count = 0
_init_count = 0  # init_process_group calls in this process (every rank makes the same number)


class _AgentStoreClient(PrefixStore):
    """A worker's view of the launcher's agent store: its attempt's keys, over a connection it owns."""

    def close(self):
        self.underlying_store.close()


def _rendezvous(init_method, rank, world_size, timeout):
    """(store, rank, world_size, master_addr) for env://, tcp://host:port, file://path."""
    url = urllib.parse.urlparse(init_method)
    query = dict(urllib.parse.parse_qsl(url.query))
    if rank == -1 and "rank" in query:
        rank = int(query["rank"])
    if world_size == -1 and "world_size" in query:
        world_size = int(query["world_size"])
    if url.scheme == "env":

        def env(name):
            v = os.environ.get(name)
            if v is None:
                raise ValueError(
                    "Error initializing torch.distributed using env:// rendezvous: "
                    f"environment variable {name} expected, but not set"
                )
            return v

        if rank == -1:
            rank = int(env("RANK"))
        if world_size == -1:
            world_size = int(env("WORLD_SIZE"))
        host, port = env("MASTER_ADDR"), int(env("MASTER_PORT"))
    elif url.scheme == "tcp":
        if not url.hostname or url.port is None:
            raise ValueError(f"tcp:// rendezvous needs host:port, got {init_method!r}")
        host, port = url.hostname, url.port
    elif url.scheme == "file":
        host, port = None, None
    else:
        raise RuntimeError(f"No rendezvous handler for {url.scheme}://")
    if rank < 0:
        raise ValueError(
            f"Error initializing torch.distributed using {url.scheme}:// rendezvous: rank parameter missing"
        )
    if world_size <= 0:
        raise ValueError(
            f"Error initializing torch.distributed using {url.scheme}:// rendezvous: world size parameter missing"
        )
    if url.scheme == "file":
        store = FileStore(url.path, world_size, timeout=timeout)
    elif url.scheme == "env" and os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True":
        # under the launcher (minitorch.distributed.run) the agent serves the store at MASTER_ADDR:MASTER_PORT:
        # every rank is a client, and each restart attempt keeps its keys apart
        attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
        client = TCPStore(host, port, world_size, is_master=False, timeout=timeout)
        store = _AgentStoreClient(f"/worker/attempt_{attempt}", client)
    else:
        store = TCPStore(
            host, port, world_size, is_master=rank == 0, timeout=timeout, _generation=_init_count + 1
        )
    return store, rank, world_size, host


def _local_address(master_addr):
    """The address of this host that peers reach: the interface that routes to the master."""
    override = os.environ.get("MINITORCH_GLOO_HOSTNAME")
    if override:
        return override
    if master_addr is None or master_addr in ("localhost", "127.0.0.1", "::1"):
        return "127.0.0.1"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((master_addr, 9))  # UDP connect sends nothing; it only picks the route
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


def _store_barrier(store, rank, world_size, timeout, key):
    """Every rank checks in; raises after `timeout` naming how many arrived (a rank that never comes)."""
    n = store.add(key, 1)
    if n == world_size:
        store.set(key + "/done", b"1")
    try:
        store.wait([key + "/done"], timeout)
    except DistStoreError as e:
        joined = store.add(key, 0)
        raise DistStoreError(
            f"Timed out initializing process group in store based barrier on rank: {rank}, for key: {key} "
            f"(world_size={world_size}, num_workers_joined={joined}, timeout={timeout} error={e})"
        ) from None


def _make_impl(backend, store, rank, size, timeout, master_addr):
    secs = _secs(timeout)
    if backend == Backend.GLOO:
        if not is_gloo_available():
            raise RuntimeError(
                "Distributed package doesn't have Gloo built in. minitorch builds the gloo backend from the "
                "system's Gloo (Debian/Ubuntu: scripts/install_system_deps.sh from the repository, or apt install "
                "libgloo-dev, then reinstall minitorch) or, without one, from Gloo's source "
                "downloaded at build time: rebuild with network access, or pass "
                "-DMINITORCH_GLOO_SOURCE_DIR=<unpacked Gloo source> (pip: CMAKE_ARGS=...), see the README"
            )
        # GLOO_SOCKET_IFNAME (as PyTorch reads it) picks the interface; else the address that routes to the master
        iface = os.environ.get("GLOO_SOCKET_IFNAME", "").split(",")[0]
        return _dist.make_gloo_group(store, rank, size, secs, _local_address(master_addr), iface)
    if not is_nccl_available():
        raise RuntimeError(
            "Distributed package doesn't have NCCL built in. The nccl backend needs a CUDA build of minitorch "
            "and NCCL at build time: pip install nvidia-nccl-cu12 (or -cu13; or the CUDA toolkit's libnccl-dev) "
            "and rebuild"
        )
    return _dist.make_nccl_group(store, rank, size, secs, cuda.current_device())


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Joins this process to the default group: rendezvous, then the backend connects every pair of ranks."""
    global _default_pg, _group_count
    if _default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    timeout = default_pg_timeout if timeout is None else timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    if not backend and device_id is not None:
        backend = Backend.default_device_backend_map.get(_C.device(device_id).type)
    backend = Backend(backend) if backend else Backend(Backend.UNDEFINED)
    config = BackendConfig(backend)
    master_addr = None
    if store is not None:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
        master_addr = getattr(store, "host", None)
        owned = None
    else:
        store, rank, world_size, master_addr = _rendezvous(init_method or "env://", rank, world_size, timeout)
        owned = store
    global _init_count
    _init_count += 1
    # keys of each init apart: a store (or FileStore file) reused after destroy_process_group holds stale ones
    root = PrefixStore(f"gen{_init_count}", store)
    pg = None
    try:
        _store_barrier(root, rank, world_size, timeout, "init/default_pg")
        pg = ProcessGroup(
            backend, config, range(world_size), rank, PrefixStore("default_pg", root), timeout, master_addr
        )
        pg._root_store = root
        pg._connect_eager()
        # nobody returns (and may destroy the group, closing the master's store) while a peer still reads it
        pg._barrier_engine().barrier()
    except BaseException:
        if pg is not None:
            pg._shutdown()  # its worker thread
        if owned is not None:
            owned.close()
        raise
    pg._owned_store = owned
    _default_pg = pg
    _group_count = 0
    _groups.append(pg)
    GroupMember.WORLD = pg


def is_initialized():
    return _default_pg is not None


def _get_default_group():
    if _default_pg is None:
        raise ValueError(_NOT_INIT)
    return _default_pg


def _resolve(group):
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if group is None:
        return _get_default_group()
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    if group._destroyed:
        raise ValueError("The given group has been destroyed")
    return group


def get_rank(group=None):
    pg = _resolve(group)
    if pg is None:
        return -1
    return pg.rank()


def get_world_size(group=None):
    pg = _resolve(group)
    if pg is None:
        return -1
    return pg.size()


def get_backend(group=None):
    """The backend string the group was made with: 'gloo', 'nccl', 'cpu:gloo,cuda:nccl', or 'undefined' when
    init_process_group had none (as PyTorch; get_backend_config says what each device uses)."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg._backend


def get_backend_config(group=None):
    """Each device type's backend, e.g. 'cpu:gloo,cuda:nccl'."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return str(pg._config)


def _registered(group):
    pg = _resolve(group)
    if pg is None or pg not in _groups:
        raise ValueError(
            f"Group {group} is not registered, please create group with torch.distributed.new_group API"
        )
    return pg


def get_global_rank(group, group_rank):
    """The global rank of `group`'s rank group_rank."""
    pg = _registered(group)
    if not isinstance(group_rank, int) or not 0 <= group_rank < len(pg._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank in `group` of the global rank global_rank."""
    pg = _registered(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return pg._ranks.index(global_rank)


def get_process_group_ranks(group=None):
    """The global ranks of `group` (the default group when None), in group-rank order."""
    return list(_registered(group)._ranks)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False):
    """A group of some ranks. Every rank of the default group calls it, in the same order (as PyTorch)."""
    global _group_count
    world = _get_default_group()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError("new_group ranks contain duplicates")
    _group_count += 1
    me = world._global_rank
    timeout = world._timeout if timeout is None else timeout
    backend = Backend(backend) if backend else world._backend
    config = BackendConfig(backend)
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    key = f"group{_group_count}"
    store = PrefixStore(key, world._root_store)
    _store_barrier(store, ranks.index(me), len(ranks), timeout, "init")
    pg = ProcessGroup(backend, config, ranks, me, store, timeout, world._master_addr)
    pg._connect_eager()
    pg._barrier_engine().barrier()
    _groups.append(pg)
    return pg


def destroy_process_group(group=None):
    """Destroys `group`, or every group and the default one when None."""
    global _default_pg
    if group is None:
        for pg in _groups:
            pg._shutdown()
        _groups.clear()
        if _default_pg is not None and getattr(_default_pg, "_owned_store", None) is not None:
            # the store init_process_group made (its port is free again for the next init)
            _default_pg._owned_store.close()
        _default_pg = None
        GroupMember.WORLD = None
        return
    pg = _resolve(group)
    if pg is None:
        return
    pg._shutdown()
    if pg in _groups:
        _groups.remove(pg)
    if pg is _default_pg:
        _default_pg = None
        GroupMember.WORLD = None


# ---- tensor staging: the engines take contiguous tensors on their device; others go through a copy


def _check_tensor(t, name="tensor"):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor")


def _stage(pg, t):
    """(tensor the engine runs on, whether results must be copied back into t)."""
    if pg._engine_name(t.device.type) == Backend.NCCL:
        return (t, False) if t.is_contiguous() else (t.contiguous(), True)
    if t.is_cuda:
        return t.cpu(), True  # Gloo reaches CUDA tensors through host copies
    return (t, False) if t.is_contiguous() else (t.contiguous(), True)


def _copy_into(dst, src):
    # results land in place as the engine's own writes do: outside autograd (dst may be a leaf that requires
    # grad), and grad mode is per thread, so the worker thread sets it here
    with grad_mode.no_grad():
        dst.copy_(src)


def _flat_empty(pg, like, n):
    dev = like.device if pg._engine_name(like.device.type) == Backend.NCCL else "cpu"
    return _C.empty(n, dtype=like.dtype, device=dev)


def _check_op(op):
    try:
        return int(ReduceOp(op))
    except ValueError:
        raise ValueError(f"Unsupported ReduceOp {op!r}") from None


def _check_peer(pg, peer, what):
    if not isinstance(peer, int):
        raise TypeError(f"{what} rank must be an int, got {type(peer).__name__}")
    return pg._group_rank(peer, what)


# The collectives below share their steps (_check_tensor, _resolve, _stage, _copy_into, pg._run) but each
# orders them around its own checks and engine call, so they repeat in shape only.
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces tensor over the group in place; every rank gets the result."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    opv = _check_op(op)
    work, copy_back = _stage(pg, tensor)

    def fn():
        impl.allreduce(work, opv)
        if copy_back:
            _copy_into(tensor, work)

    return pg._run(fn, async_op, eng)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies src's tensor into every rank's."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    root = _check_peer(pg, src, "src")
    work, copy_back = _stage(pg, tensor)

    def fn():
        impl.broadcast(work, root)
        if copy_back:
            _copy_into(tensor, work)

    return pg._run(fn, async_op, eng)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces tensor over the group into dst's (the others' tensors are left unspecified, as PyTorch)."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    root = _check_peer(pg, dst, "dst")
    opv = _check_op(op)
    work, copy_back = _stage(pg, tensor)

    def fn():
        impl.reduce(work, root, opv)
        if copy_back:
            _copy_into(tensor, work)

    return pg._run(fn, async_op, eng)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor holds every rank's input, rank r's at r * input.numel() (concatenated along dim 0)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(input_tensor)
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    out, copy_back = _stage(pg, output_tensor)
    inp, _ = _stage(pg, input_tensor)

    def fn():
        impl.allgather(out, inp)
        if copy_back:
            _copy_into(output_tensor, out)

    return pg._run(fn, async_op, eng)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] receives rank r's tensor."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != pg.size():
        raise ValueError(
            f"tensor_list must be a list of {pg.size()} tensors (the group's size), got "
            f"{len(tensor_list) if isinstance(tensor_list, (list, tuple)) else type(tensor_list).__name__}"
        )
    for i, t in enumerate(tensor_list):
        _check_tensor(t, "tensor_list")
        if t.numel() != tensor.numel() or t.dtype != tensor.dtype:
            raise ValueError(f"tensor_list[{i}] must have the input's size and dtype")
    inp, _ = _stage(pg, tensor)
    flat = _flat_empty(pg, tensor, pg.size() * tensor.numel())

    def fn():
        impl.allgather(flat, inp)
        n = tensor.numel()
        for r, t in enumerate(tensor_list):
            _copy_into(t, flat[r * n : (r + 1) * n].view(t.shape))

    return pg._run(fn, async_op, eng)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank r's output is the reduction over ranks of block r of input (input.numel() = size * output.numel())."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(input)
    if output.dtype != input.dtype:
        raise TypeError("input tensor must be the same type as the output tensor.")
    if input.numel() != output.numel() * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    opv = _check_op(op)
    out, copy_back = _stage(pg, output)
    inp, _ = _stage(pg, input)

    def fn():
        impl.reduce_scatter(out, inp, opv)
        if copy_back:
            _copy_into(output, out)

    return pg._run(fn, async_op, eng)


def _ensure_same_dtype(*tensors):
    dtypes = [t.dtype for t in tensors]
    for d in dtypes[1:]:
        if d != dtypes[0]:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {dtypes[0]} and  {d}")


def _split_counts(t, split_sizes, n):
    """Elements per rank along dim 0 (PyTorch's checkSplitSizes, then rows times the row size)."""
    dim0 = t.shape[0]
    if not split_sizes:
        if dim0 % n != 0:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
        splits = [dim0 // n] * n
    else:
        splits = [int(x) for x in split_sizes]
        if len(splits) != n:
            raise RuntimeError("Number of tensor splits not equal to group size")
        if sum(splits) != dim0:
            raise RuntimeError("Split sizes doesn't match total dim 0 size")
        if any(x < 0 for x in splits):
            raise RuntimeError(f"Split sizes must be non-negative, got {splits}")
    row = t.numel() // dim0 if dim0 else 1
    return [x * row for x in splits]


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    """Splits input along dim 0 (input_split_sizes, equal when None): block r goes to rank r; output is the
    blocks received, in rank order, sized by output_split_sizes (equal when None)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _resolve(group)
    if pg is None:
        return None
    _ensure_same_dtype(output, input)
    n = pg.size()
    in_counts = _split_counts(input, input_split_sizes, n)
    out_counts = _split_counts(output, output_split_sizes, n)
    impl, eng = pg._for(input)
    out, copy_back = _stage(pg, output)
    inp, _ = _stage(pg, input)
    even = len(set(in_counts)) == 1 and in_counts == out_counts

    def fn():
        if even:
            impl.alltoall(out, inp)
        else:
            impl.alltoallv(out, out_counts, inp, in_counts)
        if copy_back:
            _copy_into(output, out)

    return pg._run(fn, async_op, eng)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[r] goes to rank r; output_tensor_list[r] receives rank r's. Sizes may differ per rank
    (output_tensor_list[r] on this rank must match input_tensor_list[this rank] on rank r)."""
    pg = _resolve(group)
    if pg is None:
        return None
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all needs {n} input and {n} output tensors (the group's size)")
    for t in list(output_tensor_list) + list(input_tensor_list):
        _check_tensor(t, "tensor_list")
    _ensure_same_dtype(*output_tensor_list, *input_tensor_list)
    impl, eng = pg._for(input_tensor_list[0])
    in_counts = [t.numel() for t in input_tensor_list]
    out_counts = [t.numel() for t in output_tensor_list]
    inp = _flat_empty(pg, input_tensor_list[0], sum(in_counts))
    off = 0
    for t, c in zip(input_tensor_list, in_counts):
        _copy_into(inp[off : off + c], t.reshape(-1))
        off += c
    out = _flat_empty(pg, input_tensor_list[0], sum(out_counts))

    def fn():
        impl.alltoallv(out, out_counts, inp, in_counts)
        o = 0
        for t, c in zip(output_tensor_list, out_counts):
            _copy_into(t, out[o : o + c].view(t.shape))
            o += c

    return pg._run(fn, async_op, eng)


def _check_root_list(pg, lst, name, is_root, role, tensor, side):
    """gather's and scatter's list argument: on the root one tensor per rank, each of `tensor`'s size and
    dtype; on the other ranks absent (PyTorch's messages)."""
    if not is_root:
        if lst:
            raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")
        return
    if not lst:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    if len(lst) != pg.size():
        raise ValueError(f"{name} must hold {pg.size()} tensors (the group's size), got {len(lst)}")
    for t in lst:
        _check_tensor(t, name)
        if t.numel() != tensor.numel() or t.dtype != tensor.dtype:
            raise ValueError(f"{name} tensors must have the {side}'s size and dtype")


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """dst's gather_list[r] receives rank r's tensor."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    root = _check_peer(pg, dst, "dst")
    me = pg.rank()
    _check_root_list(pg, gather_list, "gather_list", me == root, "destination", tensor, "input")
    inp, _ = _stage(pg, tensor)
    flat = _flat_empty(pg, tensor, pg.size() * tensor.numel() if me == root else 0)

    def fn():
        impl.gather(flat, inp, root)
        if me == root:
            n = tensor.numel()
            for r, t in enumerate(gather_list):
                _copy_into(t, flat[r * n : (r + 1) * n].view(t.shape))

    return pg._run(fn, async_op, eng)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank r's tensor receives src's scatter_list[r]."""
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None
    impl, eng = pg._for(tensor)
    root = _check_peer(pg, src, "src")
    me = pg.rank()
    _check_root_list(pg, scatter_list, "scatter_list", me == root, "source", tensor, "output")
    if me == root:
        flat = _flat_empty(pg, tensor, pg.size() * tensor.numel())
        n = tensor.numel()
        for r, t in enumerate(scatter_list):
            _copy_into(flat[r * n : (r + 1) * n], t.reshape(-1))
    else:
        flat = _flat_empty(pg, tensor, 0)
    out, copy_back = _stage(pg, tensor)

    def fn():
        impl.scatter(out, flat, root)
        if copy_back:
            _copy_into(tensor, out)

    return pg._run(fn, async_op, eng)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns once every rank of the group reached it."""
    pg = _resolve(group)
    if pg is None:
        return None
    impl = pg._barrier_engine()
    eng = next(n for n, e in pg._engines.items() if e is impl)
    return pg._run(lambda: impl.barrier(), async_op, eng)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not arrive within `timeout` (Gloo groups, as PyTorch's).

    Rank 0 waits for every other rank's check-in, then releases them; a rank missing at the deadline makes
    rank 0 raise naming it (all missing ranks with wait_all_ranks) and the others raise pointing at rank 0.
    Check-ins go through the group's store, so each call has its own timeout and a late rank learns it failed
    instead of waiting on a peer that gave up."""
    pg = _resolve(group)
    if pg is None:
        return
    if pg._config.get_device_backend_map().get("cpu") != Backend.GLOO:
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    timeout = pg._timeout if timeout is None else timeout
    secs = _secs(timeout)
    n = pg._monitored_calls  # keys of each call apart (every rank makes the same calls)
    pg._monitored_calls += 1
    store = PrefixStore(f"monitored_barrier/{n}", pg._store)
    me, size = pg.rank(), pg.size()
    if me != 0:
        store.set(f"arrive/{me}", b"1")
        try:
            store.wait(["done"], timedelta(seconds=secs))
            ok = store.get("done") == b"ok"
        except DistStoreError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Rank {me} successfully reached monitoredBarrier, but received errors while waiting for "
                "send/recv from rank 0. Please check rank 0 logs for faulty rank."
            )
        return
    deadline = time.monotonic() + secs
    failed = []
    for r in range(1, size):
        try:
            left = max(deadline - time.monotonic(), 0.001)
            store.wait([f"arrive/{r}"], timedelta(seconds=left))
        except DistStoreError:
            failed.append(r)
            if not wait_all_ranks:
                break
    store.set("done", b"fail" if failed else b"ok")
    if failed:
        ms = int(secs * 1000)
        if wait_all_ranks:
            raise RuntimeError(
                f"[Rank 0]: Ranks {', '.join(map(str, failed))} failed to pass monitoredBarrier in {ms} ms"
            )
        raise RuntimeError(f"[Rank 0]: Rank {failed[0]} failed to pass monitoredBarrier in {ms} ms")
    return


def _p2p(tensor, peer, group, tag, what):
    _check_tensor(tensor)
    pg = _resolve(group)
    if pg is None:
        return None, None
    if peer is not None:
        if peer == pg._global_rank:
            raise ValueError(
                f"Invalid {'destination' if what == 'dst' else 'source'} rank: {'destination' if what == 'dst' else 'source'}"
                " rank should not be the same as the rank of the current process."
            )
        peer = _check_peer(pg, peer, what)
    return pg, peer


class _P2PWork(Work):
    """A posted send/recv: wait() blocks in the engine until it completed; result() is the peer's global rank."""

    def __init__(self, handle, finish):
        self._handle = handle
        self._finish = finish
        self._done = False
        self._value = None
        self._exc = None

    def wait(self, timeout=None):
        if not self._done:
            try:
                self._value = self._finish(self._handle.wait())
            except BaseException as e:  # noqa: BLE001 - kept for exception(), raised to the waiter
                self._exc = e
            self._done = True
            self._handle = None
        if self._exc is not None:
            raise self._exc
        return True

    def is_completed(self):
        return self._done

    def is_success(self):
        return self._done and self._exc is None

    def exception(self):
        return self._exc

    def get_future(self):
        raise RuntimeError("get_future is not supported for point-to-point Work")

    def result(self):
        self.wait()
        return self._value


def isend(tensor, dst, group=None, tag=0):
    """Posts a send of tensor to dst and returns at once; the Work's wait() blocks until it completed."""
    pg, peer = _p2p(tensor, dst, group, tag, "dst")
    if pg is None:
        return None
    work, _ = _stage(pg, tensor)
    # posted from this thread, not the group's worker: a send must not wait behind a recv queued after it
    return _P2PWork(pg._for(tensor)[0].isend(work, peer, tag), lambda p: pg._ranks[p] if p >= 0 else dst)


def irecv(tensor, src=None, group=None, tag=0):
    """Posts a receive into tensor from src (any rank when None); the Work's result() is the sender's global rank."""
    pg, peer = _p2p(tensor, src, group, tag, "src")
    if pg is None:
        return None
    work, copy_back = _stage(pg, tensor)

    def finish(sender):
        if copy_back:
            _copy_into(tensor, work)
        return pg._ranks[sender]

    return _P2PWork(pg._for(tensor)[0].irecv(work, -1 if peer is None else peer, tag), finish)


def send(tensor, dst, group=None, tag=0):
    w = isend(tensor, dst, group, tag)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Returns the sender's global rank (-1 when this process is not in the group)."""
    w = irecv(tensor, src, group, tag)
    if w is None:
        return -1
    return w.result()


# ---- picklable Python objects, through byte tensors (the group's device: CPU for gloo, the current GPU for nccl)


def _object_device(pg):
    # CPU when the group has a CPU backend (PyTorch prefers it too), else the current GPU
    if "cpu" in pg._config.get_device_backend_map():
        return "cpu"
    return f"cuda:{cuda.current_device()}"


def _to_bytes_tensor(obj, device):
    import numpy as np

    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8).copy()
    return _creation.tensor(data, dtype=_C.uint8, device=device)


def _from_bytes_tensor(t, n):
    return pickle.loads(t[:n].cpu().numpy().tobytes())


def _validate_output_list_for_rank(my_rank, dst, gather_list):
    if dst == my_rank:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")


def _gather_sizes(pg, n, group, dev):
    """Every rank's pickled size (an all-gather: every rank then pads to the largest)."""
    sizes = _C.empty(pg.size(), dtype=_C.int64, device=dev)
    all_gather_into_tensor(sizes, _creation.tensor([n], dtype=_C.int64, device=dev), group=group)
    return [int(x) for x in sizes.cpu().tolist()]


def all_gather_object(object_list, obj, group=None):
    """object_list[r] becomes rank r's obj (pickled; sizes exchanged first, buffers padded to the largest)."""
    pg = _resolve(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(
            f"object_list must hold {pg.size()} entries (the group's size), got {len(object_list)}"
        )
    dev = _object_device(pg)
    data = _to_bytes_tensor(obj, dev)
    sizes = _gather_sizes(pg, data.numel(), group, dev)
    cap = max(sizes)
    padded = _C.zeros(cap, dtype=_C.uint8, device=dev)
    padded[: data.numel()].copy_(data)
    out = _C.empty(pg.size() * cap, dtype=_C.uint8, device=dev)
    all_gather_into_tensor(out, padded, group=group)
    for r in range(pg.size()):
        object_list[r] = _from_bytes_tensor(out[r * cap : (r + 1) * cap], sizes[r])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """dst's object_gather_list[r] becomes rank r's obj (pickled); the other ranks pass no list."""
    pg = _resolve(group)
    if pg is None:
        return
    root = _check_peer(pg, dst, "dst")
    me = pg.rank()
    _validate_output_list_for_rank(pg._global_rank, dst, object_gather_list)
    dev = _object_device(pg)
    data = _to_bytes_tensor(obj, dev)
    sizes = _gather_sizes(pg, data.numel(), group, dev)
    cap = max(sizes)
    padded = _C.zeros(cap, dtype=_C.uint8, device=dev)
    padded[: data.numel()].copy_(data)
    outs = [_C.empty(cap, dtype=_C.uint8, device=dev) for _ in range(pg.size())] if me == root else None
    gather(padded, outs, dst=dst, group=group)
    if me != root:
        return
    for r in range(pg.size()):
        object_gather_list[r] = _from_bytes_tensor(outs[r], sizes[r])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None):
    """scatter_object_output_list[0] on rank r becomes src's scatter_object_input_list[r] (pickled)."""
    pg = _resolve(group)
    if pg is None:
        return
    root = _check_peer(pg, src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    me = pg.rank()
    dev = _object_device(pg)
    if me == root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        if len(scatter_object_input_list) != pg.size():
            raise ValueError(
                f"scatter_object_input_list must hold {pg.size()} objects (the group's size), "
                f"got {len(scatter_object_input_list)}"
            )
        datas = [_to_bytes_tensor(o, dev) for o in scatter_object_input_list]
        cap = _creation.tensor([max(d.numel() for d in datas)], dtype=_C.int64, device=dev)
    else:
        cap = _C.zeros(1, dtype=_C.int64, device=dev)
    # every rank scatters equal sizes: src says the largest, then the padded bytes, then each true size
    broadcast(cap, src, group=group)
    n = int(cap.item())
    pieces = sizes = None
    if me == root:
        pieces = []
        for d in datas:
            p = _C.zeros(n, dtype=_C.uint8, device=dev)
            p[: d.numel()].copy_(d)
            pieces.append(p)
        sizes = [_creation.tensor([d.numel()], dtype=_C.int64, device=dev) for d in datas]
    buf = _C.empty(n, dtype=_C.uint8, device=dev)
    scatter(buf, pieces, src=src, group=group)
    size = _C.zeros(1, dtype=_C.int64, device=dev)
    scatter(size, sizes, src=src, group=group)
    scatter_object_output_list[0] = _from_bytes_tensor(buf, int(size.item()))


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Every rank's object_list becomes src's (in place; every rank passes a list of the same length)."""
    pg = _resolve(group)
    if pg is None:
        return
    _check_peer(pg, src, "src")
    dev = device if device is not None else _object_device(pg)
    me_src = pg._global_rank == src
    data = _to_bytes_tensor(list(object_list), dev) if me_src else None
    size = _creation.tensor([data.numel() if me_src else 0], dtype=_C.int64, device=dev)
    broadcast(size, src, group=group)
    n = int(size.item())
    buf = data if me_src else _C.empty(n, dtype=_C.uint8, device=dev)
    broadcast(buf, src, group=group)
    if not me_src:
        objs = _from_bytes_tensor(buf, n)
        if len(objs) != len(object_list):
            raise ValueError("object_list must have the same length on every rank")
        object_list[:] = objs


__all__ = [
    "Backend",
    "BackendConfig",
    "DistError",
    "DistStoreError",
    "FileStore",
    "GroupMember",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_backend_config",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_nccl_available",
    "isend",
    "monitored_barrier",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
