"""DataLoader internals (PyTorch's torch.utils.data._utils layout): collate, fetch, worker, pin_memory, shared."""

import sys
import traceback

# How often a waiting process checks on its peers: the main process on its workers (did one die?), a worker on
# the main process (is it gone?). Short enough that a dead worker is reported promptly, long enough to cost
# nothing while waiting.
MP_STATUS_CHECK_INTERVAL = 0.2


class KeyErrorMessage(str):
    """str whose repr is itself, so a re-raised KeyError shows its multi-line message readably."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, with its traceback as text, so the main process can re-raise it."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_name = self.exc_type.__name__  # kept when exc_type must fall back to RuntimeError
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the wrapped exception type with the worker's traceback in the message (as PyTorch)."""
        msg = f"Caught {getattr(self, 'exc_name', self.exc_type.__name__)} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError's str() is the repr of its argument, which would escape every newline
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # some exceptions take the message as a keyword only
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - any constructor failure means: not a (msg) constructor
            # the type's constructor wants other arguments: fall back to RuntimeError with the same text
            raise RuntimeError(msg) from None
        raise exception
