"""Grad mode switches (no_grad, enable_grad, set_grad_enabled, inference_mode): context managers and decorators."""

import functools
import inspect

from minitorch import _C


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions) with itself."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("cannot decorate a class with a grad mode context manager")
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                response = None
                while True:
                    with self.clone():
                        try:
                            value = gen.send(response)
                        except StopIteration as e:
                            return e.value
                    response = yield value

            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        """A fresh copy of this context manager (used when it decorates a function)."""
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disables gradient recording in this thread for the block (or decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enables gradient recording in this thread for the block (inside a no_grad block, say)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off; takes effect at once (as a function) or for a block (as a context manager)."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __call__(self, func):
        # as a decorator it must not change the mode at decoration time
        _C._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        """A fresh copy of this context manager (used when it decorates a function)."""
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """no_grad, and what is made inside is an inference tensor, as in PyTorch: it cannot be saved for backward
    nor written in place outside inference mode (views of normal tensors made inside stay normal).
    mode=False leaves grad mode as is."""

    def __init__(self, mode=True):
        self.mode = mode
        self.prev = False
        self.prev_inf = False

    def __new__(cls, mode=True):
        # @inference_mode without parentheses
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        self.prev_inf = _C.is_inference_mode_enabled()
        if self.mode:
            _C._set_grad_enabled(False)
            _C._set_inference_mode(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        _C._set_inference_mode(self.prev_inf)

    def clone(self):
        """A fresh copy of this context manager (used when it decorates a function)."""
        return self.__class__(self.mode)


def is_grad_enabled():
    """True when operations record the autograd graph (outside no_grad and inference_mode)."""
    return _C.is_grad_enabled()


def is_inference_mode_enabled():
    """True inside an enabled inference_mode block."""
    return _C.is_inference_mode_enabled()


def is_inference(input):
    """True when `input` was made inside inference_mode (an inference tensor, or a view of one)."""
    if not isinstance(input, _C.Tensor):  # PyTorch's parser
        raise TypeError(
            f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return input.is_inference()
