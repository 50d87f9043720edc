"""Key-value stores processes rendezvous through: TCPStore (server on the master), FileStore, PrefixStore."""

import fcntl
import os
import pickle
import socket
import struct
import threading
import time
from datetime import timedelta


class DistError(RuntimeError):
    """Base of minitorch.distributed's errors (RuntimeError, as torch.distributed's)."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""


class DistNetworkError(DistError):
    """A peer could not be reached."""


def _seconds(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode()
    return bytes(value)


class Store:
    """The methods every store shares, written in terms of _set/_get_nowait/_add/_check/_delete."""

    def __init__(self, timeout=timedelta(seconds=300)):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self):
        return timedelta(seconds=self._timeout)

    def set_timeout(self, timeout):
        self._timeout = _seconds(timeout)

    def get(self, key):
        """The value of key, waiting up to the store's timeout for it to be set."""
        self.wait([key])
        return self._get_nowait(key)

    def close(self):
        """Releases the store's connections (a no-op for stores without any)."""

    def wait(self, keys, timeout=None):
        if isinstance(keys, str):
            keys = [keys]
        secs = self._timeout if timeout is None else _seconds(timeout)
        if not self._wait(list(keys), secs):
            raise DistStoreError(f"wait timeout after {int(secs * 1000)}ms, keys: {', '.join(keys)}")


class _Server:
    """The master's side of TCPStore: a thread per client connection over one locked dict."""

    def __init__(self, host, port):
        self.data = {}
        self.cond = threading.Condition()
        self.sock = socket.create_server((host, port), reuse_port=False, backlog=128)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        self.conns = set()
        threading.Thread(target=self._accept, daemon=True, name="TCPStore-server").start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            while True:
                req = _recv_msg(conn)
                if req is None:
                    return
                _send_msg(conn, self._handle(*req))
        except OSError:
            pass
        finally:
            self.conns.discard(conn)
            conn.close()

    def _handle(self, cmd, *args):
        with self.cond:
            if cmd == "set":
                self.data[args[0]] = args[1]
                self.cond.notify_all()
                return None
            if cmd == "get":
                return self.data.get(args[0])
            if cmd == "add":
                v = int(self.data.get(args[0], b"0")) + args[1]
                self.data[args[0]] = str(v).encode()
                self.cond.notify_all()
                return v
            if cmd == "compare_set":
                key, expected, desired = args
                cur = self.data.get(key)
                if (cur is None and expected == b"") or cur == expected:
                    self.data[key] = desired
                    self.cond.notify_all()
                    return desired
                return expected if cur is None else cur
            if cmd == "check":
                return all(k in self.data for k in args[0])
            if cmd == "wait":
                keys, secs = args
                return self.cond.wait_for(lambda: all(k in self.data for k in keys), secs)
            if cmd == "delete":
                return self.data.pop(args[0], None) is not None
            if cmd == "num_keys":
                return len(self.data)
        raise ValueError(f"unknown store command {cmd}")

    def close(self):
        self.closed = True
        # shutdown first: a thread blocked in accept() keeps a merely closed socket listening (Linux)
        for sock in [self.sock] + list(self.conns):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


def _send_msg(sock, obj):
    data = pickle.dumps(obj)
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _recv_msg(sock):
    head = _recv_exact(sock, 8)
    if head is None:
        return None
    body = _recv_exact(sock, struct.unpack("!Q", head)[0])
    if body is None:
        return None
    return pickle.loads(body)


class TCPStore(Store):
    """torch.distributed.TCPStore: the master (is_master=True) serves the keys, every process is a client.

    port=0 on the master picks a free port (read it back from .port)."""

    def __init__(
        self,
        host_name,
        port,
        world_size=None,
        is_master=False,
        timeout=timedelta(seconds=300),
        wait_for_workers=True,
        multi_tenant=False,
        _generation=None,
    ):
        super().__init__(timeout)
        # _generation (init_process_group's count in this process): a client that reaches a master of an earlier
        # generation (a peer that has not closed its previous store yet) disconnects and retries
        self._generation = _generation
        self.host = host_name
        self._server = _Server("" if host_name in ("0.0.0.0", "") else host_name, port) if is_master else None
        self.port = self._server.port if is_master else port
        self.world_size = world_size
        self._lock = threading.Lock()
        self._sock = self._connect()
        if is_master and _generation is not None:
            self._call("set", "/_mt_store/generation", str(_generation).encode())
        if is_master and wait_for_workers and world_size is not None and world_size > 0:
            # counts clients, so a worker that never starts fails the master's init after the timeout
            self.add("/_mt_store/num_workers", 1)
            deadline = time.monotonic() + self._timeout
            while True:
                joined = int(self._call("get", "/_mt_store/num_workers") or b"0")
                if joined >= world_size:
                    break
                if time.monotonic() > deadline:
                    raise DistStoreError(
                        f"Timed out after {int(self._timeout)} seconds waiting for clients. "
                        f"{joined}/{world_size} clients joined."
                    )
                time.sleep(0.01)
        elif not is_master:
            self.add("/_mt_store/num_workers", 1)

    def _connect(self):
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                s = socket.create_connection(
                    (self.host, self.port), timeout=max(0.1, deadline - time.monotonic())
                )
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.settimeout(None)
                if self._generation is None or self._server is not None:
                    return s
                _send_msg(s, ("get", "/_mt_store/generation"))
                gen = _recv_msg(s)
                if gen is not None and int(gen) >= self._generation:
                    return s
                s.close()
                if time.monotonic() > deadline:
                    raise OSError("only a master of an earlier generation answered")
                time.sleep(0.05)
            except OSError:
                if time.monotonic() > deadline:
                    raise DistNetworkError(
                        f"The client socket has timed out after {int(self._timeout)}s while trying to connect "
                        f"to ({self.host}, {self.port})."
                    ) from None
                time.sleep(0.05)

    def _call(self, *req):
        with self._lock:
            try:
                _send_msg(self._sock, req)
                resp = _recv_msg(self._sock)
            except OSError as e:
                raise DistNetworkError(
                    f"TCPStore connection to ({self.host}, {self.port}) failed: {e}"
                ) from None
            if resp is None and req[0] not in ("set", "get", "delete"):
                raise DistNetworkError(
                    f"TCPStore connection to ({self.host}, {self.port}) closed by the server"
                )
            return resp

    def set(self, key, value):
        self._call("set", key, _as_bytes(value))

    def _get_nowait(self, key):
        v = self._call("get", key)
        if v is None:
            raise DistStoreError(f"key {key} not found in the store")
        return v

    def add(self, key, amount):
        return self._call("add", key, int(amount))

    def compare_set(self, key, expected_value, desired_value):
        return self._call("compare_set", key, _as_bytes(expected_value), _as_bytes(desired_value))

    def check(self, keys):
        return self._call("check", list(keys))

    def _wait(self, keys, secs):
        return self._call("wait", keys, secs)

    def delete_key(self, key):
        return self._call("delete", key)

    def num_keys(self):
        return self._call("num_keys")

    def close(self):
        try:
            self._sock.close()
        finally:
            if self._server is not None:
                self._server.close()


class FileStore(Store):
    """torch.distributed.FileStore: keys in one pickled dict in a file shared by the processes (flock'd)."""

    def __init__(self, file_name, world_size=-1, timeout=timedelta(seconds=300)):
        super().__init__(timeout)
        self.path = file_name
        self.world_size = world_size
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        os.close(fd)

    def _update(self, fn):
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                raw = f.read()
                data = pickle.loads(raw) if raw else {}
                result, changed = fn(data)
                if changed:
                    f.seek(0)
                    f.truncate()
                    f.write(pickle.dumps(data))
                    f.flush()
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def set(self, key, value):
        value = _as_bytes(value)

        def fn(d):
            d[key] = value
            return None, True

        self._update(fn)

    def _get_nowait(self, key):
        v = self._update(lambda d: (d.get(key), False))
        if v is None:
            raise DistStoreError(f"key {key} not found in the store")
        return v

    def add(self, key, amount):
        def fn(d):
            v = int(d.get(key, b"0")) + int(amount)
            d[key] = str(v).encode()
            return v, True

        return self._update(fn)

    def check(self, keys):
        return self._update(lambda d: (all(k in d for k in keys), False))

    def _wait(self, keys, secs):
        deadline = time.monotonic() + secs
        while not self.check(keys):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def delete_key(self, key):
        def fn(d):
            return d.pop(key, None) is not None, True

        return self._update(fn)

    def num_keys(self):
        return self._update(lambda d: (len(d), False))


class PrefixStore(Store):
    """Every key of `store` under `prefix/`: one namespace per process group."""

    def __init__(self, prefix, store):
        super().__init__(timedelta(seconds=store._timeout))
        self.prefix = prefix
        self.underlying_store = store

    def _k(self, key):
        return f"{self.prefix}/{key}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def _get_nowait(self, key):
        return self.underlying_store._get_nowait(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def wait(self, keys, timeout=None):
        if isinstance(keys, str):
            keys = [keys]
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))

    def num_keys(self):
        return self.underlying_store.num_keys()
