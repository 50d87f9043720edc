"""torch.jit.fork / torch.jit.wait: asynchronous calls, run here synchronously, with a Future for the result."""

__all__ = ["Future", "fork", "wait"]


class Future:
    """The result of a fork: done() at once (the call already ran), wait()/value() return its result or
    raise its exception; then(callback) chains another Future."""

    def __init__(self, *, devices=None):
        self._done = False
        self._result = None
        self._exc = None
        self._callbacks = []

    def done(self):
        """Whether the result (or exception) is set."""
        return self._done

    def set_result(self, result):
        """Completes the future with result."""
        if self._done:
            raise RuntimeError("Future can only be marked completed once")
        self._result, self._done = result, True
        self._run_callbacks()

    def set_exception(self, exc):
        """Completes the future with an exception that wait() raises."""
        if self._done:
            raise RuntimeError("Future can only be marked completed once")
        self._exc, self._done = exc, True
        self._run_callbacks()

    def wait(self):
        """The result (raising the exception the future completed with)."""
        if not self._done:
            raise RuntimeError("Future.wait(): the future was never completed")
        if self._exc is not None:
            raise self._exc
        return self._result

    def value(self):
        """The result, as wait()."""
        return self.wait()

    def then(self, callback):
        """A Future completed with callback(self) once this one is."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001  (delivered through the future, as PyTorch's)
                out.set_exception(e)

        self.add_done_callback(run)
        return out

    def add_done_callback(self, callback):
        """Calls callback(self) once the future is done (at once if it is)."""
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def _run_callbacks(self):
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def __repr__(self):
        return f"Future(done={self._done})"


def fork(func, *args, **kwargs):
    """Runs func(*args, **kwargs) at once, on this thread, and returns a completed Future of its result (an
    exception propagates from fork itself, as PyTorch's eager fork does)."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The result of a Future returned by fork (raising the exception of the call, if it raised)."""
    if not isinstance(future, Future):
        raise TypeError(f"wait(): expected a torch.jit.Future, got {type(future).__name__}")
    return future.wait()
