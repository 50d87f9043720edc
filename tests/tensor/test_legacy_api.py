"""The small legacy API old scripts still use (issue 33): FloatTensor & co., Tensor(...)/Tensor.new(...),
Tensor.type with legacy types, set_default_tensor_type, autograd.Variable, torch.accelerator, the Python-level
Generator methods and the size= keyword forms; values against NumPy, errors in PyTorch 2.15's classes and
words."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import autograd

LEGACY = [
    ("DoubleTensor", minitorch.float64, np.float64),
    ("FloatTensor", minitorch.float32, np.float32),
    ("HalfTensor", minitorch.float16, np.float16),
    ("BFloat16Tensor", minitorch.bfloat16, None),
    ("LongTensor", minitorch.int64, np.int64),
    ("IntTensor", minitorch.int32, np.int32),
    ("ShortTensor", minitorch.int16, np.int16),
    ("CharTensor", minitorch.int8, np.int8),
    ("ByteTensor", minitorch.uint8, np.uint8),
    ("BoolTensor", minitorch.bool, np.bool_),
]
CUDA_COMPILED = minitorch._C._cuda_compiled()
HAS_GPU = minitorch.cuda.is_available()


@pytest.fixture
def restore_defaults():
    dtype = minitorch.get_default_dtype()
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minitorch.set_default_tensor_type(minitorch.FloatTensor)
    minitorch.set_default_dtype(dtype)
    minitorch.set_default_device(None)


# ---- FloatTensor & co.


@pytest.mark.parametrize("name,dtype,np_dtype", LEGACY)
def test_typed_constructors_from_data_sizes_and_nothing(name, dtype, np_dtype):
    cls = getattr(minitorch, name)
    # (negative values into uint8: PyTorch raises RuntimeError; minitorch.tensor raises numpy's OverflowError)
    data = [[1.75, -2.5 if dtype != minitorch.uint8 else 2.5, 0.0], [3.25, 4.0, 1.0]]
    t = cls(data)
    assert t.dtype == dtype and t.shape == (2, 3) and t.device.type == "cpu"
    if np_dtype is not None:
        # float -> int conversions truncate toward zero, as NumPy's astype and PyTorch's
        np.testing.assert_array_equal(t.numpy(), np.array(data).astype(np_dtype))
    else:
        np.testing.assert_allclose(t.float().numpy(), np.array(data, np.float32), rtol=1e-2)
    e = cls(2, 3)
    assert e.dtype == dtype and e.shape == (2, 3)
    assert cls(minitorch.Size([4, 0])).shape == (4, 0)
    assert cls().shape == (0,) and cls().dtype == dtype
    assert cls(np.array([1, 0, 1])).tolist() == minitorch.tensor([1, 0, 1], dtype=dtype).tolist()
    assert isinstance(t, cls) and not isinstance(t, minitorch.cuda.FloatTensor)
    assert cls.dtype == dtype and cls.is_cuda is False and cls.__name__ == name


def test_typed_constructor_argument_forms():
    x = minitorch.arange(6.0).reshape(2, 3)
    # a tuple is data, a torch.Size (or several ints) is a size; a single int is a size too
    assert minitorch.FloatTensor((2, 3)).tolist() == [2.0, 3.0]
    assert minitorch.FloatTensor(np.int64(3), 2).shape == (3, 2)
    assert minitorch.FloatTensor(2, True).shape == (2, 1)
    assert minitorch.FloatTensor(0).shape == (0,)
    assert minitorch.FloatTensor([[]]).shape == (1, 0)
    assert minitorch.FloatTensor(range(3)).tolist() == [0.0, 1.0, 2.0]
    assert minitorch.FloatTensor(size=(2, 3)).shape == (2, 3)
    assert minitorch.FloatTensor(data=[1, 2]).tolist() == [1.0, 2.0]
    assert minitorch.FloatTensor(device="cpu").shape == (0,)
    assert minitorch.FloatTensor(2, 3, device="cpu").shape == (2, 3)
    # a tensor of the same type: an alias sharing storage and strides, through which gradients flow
    xt = x.t()
    a = minitorch.FloatTensor(xt)
    assert a.data_ptr() == xt.data_ptr() and a.stride() == xt.stride() and a is not xt
    w = minitorch.ones(3, requires_grad=True)
    minitorch.FloatTensor(w).mul(minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: minitorch.FloatTensor(2.5), TypeError, "new(): data must be a sequence (got float)"),
        (lambda: minitorch.FloatTensor(True), TypeError, "new(): data must be a sequence (got bool)"),
        (lambda: minitorch.FloatTensor(None), TypeError, "new(): data must be a sequence (got NoneType)"),
        (
            lambda: minitorch.FloatTensor(iter([1])),
            TypeError,
            "new(): data must be a sequence (got list_iterator)",
        ),
        (lambda: minitorch.FloatTensor({1: 2}), TypeError, "new(): data must be a sequence (got dict)"),
        (lambda: minitorch.FloatTensor("a"), TypeError, "new(): invalid data type 'str'"),
        (
            lambda: minitorch.FloatTensor(-1),
            RuntimeError,
            "Trying to create tensor with negative dimension -1: [-1]",
        ),
        (lambda: minitorch.FloatTensor(2, -1), RuntimeError, "negative dimension -1: [2, -1]"),
        (
            lambda: minitorch.FloatTensor(2, "a"),
            TypeError,
            (
                "new(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of "
                'ints,but got str"'
            ),
        ),
        (
            lambda: minitorch.FloatTensor(2, dtype=minitorch.float64),
            TypeError,
            (
                "new() received an invalid combination of arguments - got (int, dtype=torch.dtype), but expected one "
                "of:\n * (*, torch.device device = None)\n      didn't match because some of the keywords were "
                "incorrect: dtype"
            ),
        ),
        (
            lambda: minitorch.FloatTensor(2.5, 3),
            TypeError,
            (
                "got (float, int), but expected one of:\n * (*, torch.device device = None)\n      didn't match "
                "because some of the arguments have invalid types: (!float!, !int!)"
            ),
        ),
        (lambda: minitorch.FloatTensor([2], 3), TypeError, "(!list of [int]!, !int!)"),
        (
            lambda: minitorch.FloatTensor([1.0], device="cuda"),
            RuntimeError,
            "legacy constructor expects device type: cpu but device type: cuda was passed",
        ),
        (
            lambda: minitorch.FloatTensor(minitorch.zeros(2), device="cpu"),
            RuntimeError,
            (
                "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not supported.  Use "
                "torch.tensor(...) or torch.as_tensor(...) instead."
            ),
        ),
        (
            lambda: minitorch.FloatTensor(minitorch.zeros(2, dtype=minitorch.float64)),
            TypeError,
            (
                "expected TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), "
                "pinned_memory=false (default), memory_format=(nullopt)) (got TensorOptions(dtype=double, device=cpu"
            ),
        ),
        (
            lambda: minitorch.LongTensor(minitorch.zeros(2)),
            TypeError,
            "expected TensorOptions(dtype=long int",
        ),
        (  # a complex tensor's C++ name (its own table here had none: a KeyError)
            lambda: minitorch.FloatTensor(minitorch.zeros(2, dtype=minitorch.complex64)),
            TypeError,
            "(got TensorOptions(dtype=c10::complex<float>, device=cpu",
        ),
    ],
)
def test_typed_constructor_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)


def test_isinstance_follows_dtype_and_device():
    x = minitorch.zeros(2, 3)
    assert isinstance(x, minitorch.FloatTensor)
    assert isinstance(x.t(), minitorch.FloatTensor)  # any layout
    assert isinstance(x.requires_grad_(), minitorch.FloatTensor)
    assert not isinstance(x, minitorch.DoubleTensor)
    assert isinstance(x.long(), minitorch.LongTensor) and not isinstance(x.long(), minitorch.IntTensor)
    assert not isinstance(x, minitorch.cuda.FloatTensor)
    assert not isinstance(1.0, minitorch.FloatTensor) and not isinstance(np.zeros(2), minitorch.FloatTensor)
    assert not issubclass(minitorch.FloatTensor, minitorch.Tensor)
    assert minitorch.cuda.FloatTensor.is_cuda and minitorch.cuda.LongTensor.dtype == minitorch.int64
    if HAS_GPU:
        assert isinstance(x.cuda(), minitorch.cuda.FloatTensor) and not isinstance(
            x.cuda(), minitorch.FloatTensor
        )


def test_cuda_constructors_warn_once_and_need_cuda():
    if HAS_GPU:
        with pytest.warns(
            UserWarning, match=r"torch.cuda.\*DtypeTensor constructors are no longer recommended"
        ):
            t = minitorch.cuda.FloatTensor([1.0, 2.0])
        assert t.is_cuda and t.dtype == minitorch.float32 and t.cpu().tolist() == [1.0, 2.0]
        assert minitorch.cuda.LongTensor(2, 3).shape == (2, 3)
        return
    exc = RuntimeError if CUDA_COMPILED else AssertionError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match="NVIDIA driver|not compiled with CUDA"):
            minitorch.cuda.FloatTensor([1.0])
        with pytest.raises(exc, match="NVIDIA driver|not compiled with CUDA"):
            minitorch.cuda.FloatTensor(2)


# ---- Tensor(...) and Tensor.new(...)


def test_tensor_class_constructor(restore_defaults):
    assert minitorch.Tensor(2, 3).shape == (2, 3) and minitorch.Tensor(2, 3).dtype == minitorch.float32
    assert minitorch.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert minitorch.Tensor().shape == (0,)
    assert minitorch.Tensor((2, 3)).tolist() == [2.0, 3.0]
    assert minitorch.Tensor(minitorch.Size([2, 3])).shape == (2, 3)
    np.testing.assert_array_equal(
        minitorch.Tensor(np.array([[1, 2]])).numpy(), np.array([[1, 2]], np.float32)
    )
    # Tensor(other) aliases a tensor of any dtype
    x = minitorch.arange(6).reshape(2, 3)
    y = minitorch.Tensor(x)
    assert y.dtype == minitorch.int64 and y.data_ptr() == x.data_ptr()
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        minitorch.Tensor(2.5)
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got bool\)"):
        minitorch.Tensor(True)
    minitorch.set_default_dtype(minitorch.float64)
    assert minitorch.Tensor(2).dtype == minitorch.float64 and minitorch.Tensor([1]).dtype == minitorch.float64


def test_tensor_class_constructor_device_keyword():
    assert minitorch.Tensor(2, 3, device="cpu").shape == (2, 3)


def test_tensor_new():
    x = minitorch.arange(6.0).reshape(2, 3)
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == minitorch.float32
    assert x.new([1, 2]).tolist() == [1.0, 2.0]
    assert x.new().shape == (0,)
    assert x.new((2, 3)).tolist() == [2.0, 3.0]
    assert x.new(minitorch.Size([2])).shape == (2,)
    assert x.long().new([1.5, -1.5]).tolist() == [1, -1]
    assert x.new(size=(4,)).shape == (4,)
    assert x.new(2, device="cpu").shape == (2,)
    a = x.new(x)
    assert a.data_ptr() == x.data_ptr() and a.shape == x.shape
    with pytest.raises(
        TypeError, match=r"expected TensorOptions\(dtype=float.*got TensorOptions\(dtype=long int"
    ):
        x.new(x.long())
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        x.new(2.5)
    with pytest.raises(
        RuntimeError, match="legacy constructor expects device type: cpu but device type: cuda"
    ):
        x.new(2, device="cuda")
    with pytest.raises(TypeError, match=r"got \(int, dtype=torch.dtype\), but expected one of"):
        x.new(2, dtype=minitorch.float64)


def test_tensor_type_with_legacy_types():
    x = minitorch.arange(6.0).reshape(2, 3)
    assert x.type() == "torch.FloatTensor" and x.long().type() == "torch.LongTensor"
    assert x.type(minitorch.FloatTensor) is x and x.type(minitorch.float32) is x
    for target in (minitorch.DoubleTensor, "torch.DoubleTensor", minitorch.float64):
        y = x.type(target)
        assert y.dtype == minitorch.float64
        np.testing.assert_array_equal(y.numpy(), x.numpy().astype(np.float64))
    assert x.type(dtype="torch.IntTensor").dtype == minitorch.int32
    assert x.type(minitorch.LongTensor, non_blocking=True).dtype == minitorch.int64
    for bad in ("torch.FooTensor", "foo.Bar", int):
        with pytest.raises(ValueError, match="invalid type: '(torch.FooTensor|foo.Bar|int)'"):
            x.type(bad)
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(5)
    if not HAS_GPU:
        exc = RuntimeError if CUDA_COMPILED else AssertionError
        with pytest.raises(exc):
            x.type(minitorch.cuda.FloatTensor)
    else:
        assert x.type("torch.cuda.DoubleTensor").is_cuda


def test_set_default_tensor_type(restore_defaults, monkeypatch):
    monkeypatch.setattr(minitorch._switches, "_warned", set())  # the warning is once per process
    with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
        minitorch.set_default_tensor_type(minitorch.DoubleTensor)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        minitorch.set_default_tensor_type("torch.DoubleTensor")
    assert not [w for w in rec if "set_default_tensor_type" in str(w.message)]  # once per process
    assert minitorch.get_default_dtype() == minitorch.float64
    assert minitorch.zeros(1).dtype == minitorch.float64 and minitorch.Tensor(1).dtype == minitorch.float64
    assert minitorch.FloatTensor(1).dtype == minitorch.float32  # a typed constructor keeps its type
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minitorch.set_default_tensor_type(minitorch.HalfTensor)
        assert minitorch.get_default_dtype() == minitorch.float16
        with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
            minitorch.set_default_tensor_type(minitorch.LongTensor)
        with pytest.raises(TypeError, match="^invalid type object: only floating-point types are supported"):
            minitorch.set_default_tensor_type(minitorch.float64)
        with pytest.raises(AttributeError, match="module 'torch' has no attribute 'FooTensor'"):
            minitorch.set_default_tensor_type("torch.FooTensor")
        assert minitorch.get_default_dtype() == minitorch.float16  # the failed calls changed nothing


# ---- autograd.Variable


def test_variable_is_the_legacy_tensor_wrapper():
    Variable = autograd.Variable
    x = minitorch.tensor([1.0, 2.0, 3.0])
    v = Variable(x, requires_grad=True)
    assert type(v) is minitorch.Tensor and v is not x and v.data_ptr() == x.data_ptr()
    assert v.requires_grad and v.is_leaf and not x.requires_grad
    (v * v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 2 * x.numpy())
    assert Variable(x, True).requires_grad  # positional requires_grad
    y = minitorch.ones(2, requires_grad=True) * 2
    d = Variable(y)
    assert d.grad_fn is None and d.is_leaf and not d.requires_grad  # detached from y's graph
    assert Variable().shape == (0,)
    assert isinstance(x, Variable) and isinstance(v, Variable) and not isinstance([1.0], Variable)
    assert not issubclass(minitorch.Tensor, Variable)
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(x, volatile=True)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.raises(RuntimeError, match="can require gradients"):
        Variable(x.long(), requires_grad=True)


# ---- accelerator


def test_accelerator_matches_the_build_and_the_machine():
    acc = minitorch.accelerator
    if not CUDA_COMPILED:
        assert acc.current_accelerator() is None and acc.current_accelerator(check_available=True) is None
        assert acc.device_count() == 0 and acc.is_available() is False
        msg = "Cannot access accelerator device when none is available."
        for call in (
            acc.current_device_index,
            acc.synchronize,
            acc.current_stream,
            lambda: acc.set_device_index(0),
        ):
            with pytest.raises(RuntimeError, match=msg):
                call()
        with pytest.raises(RuntimeError, match="Accelerator expected"):
            acc.set_device_index("cuda:0")
    else:
        assert acc.current_accelerator() == minitorch.device("cuda")
        assert acc.device_count() == minitorch.cuda.device_count()
        assert acc.is_available() == HAS_GPU
        assert (acc.current_accelerator(check_available=True) is not None) == HAS_GPU
        with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda."):
            acc.set_device_index("cpu")
        with pytest.raises(ValueError, match="Expected a torch.device with a specified index or an integer"):
            acc.set_device_index("cuda")
    # the memory counters never start the driver: 0 / empty until it is initialized
    if not minitorch.cuda.is_initialized():
        assert (
            acc.memory_allocated() == 0 and acc.max_memory_reserved() == 0 and dict(acc.memory_stats()) == {}
        )
        acc.empty_cache()
        acc.reset_peak_memory_stats()
    with acc.device_index(None):  # no switch, no driver
        pass
    with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
        _without_gpu_raises(acc.current_device_idx)
    acc.set_device_index(-1)  # negative: a no-op


def _without_gpu_raises(fn):
    """fn() on a GPU machine; without one it must raise RuntimeError (no device to ask)."""
    try:
        fn()
    except RuntimeError:
        assert not HAS_GPU


@pytest.mark.skipif(not HAS_GPU, reason="needs a GPU")
def test_accelerator_on_the_gpu():
    acc = minitorch.accelerator
    assert acc.current_device_index() == minitorch.cuda.current_device()
    x = minitorch.ones(1024, device=acc.current_accelerator())
    acc.synchronize()
    assert acc.memory_allocated() >= x.nbytes and acc.max_memory_allocated() >= acc.memory_allocated()
    free, total = acc.get_memory_info()
    assert 0 < free <= total
    s = minitorch.cuda.Stream()
    acc.set_stream(s)
    assert acc.current_stream() == s
    acc.set_stream(minitorch.cuda.default_stream())
    with acc.device_index(0):
        assert acc.current_device_index() == 0
    assert minitorch.float32 in acc.get_device_capability()["supported_dtypes"]


# ---- Generator


def test_generator_python_methods():
    g = minitorch.Generator(device="cpu").manual_seed(3)
    assert isinstance(g, minitorch.Generator) and g.manual_seed(3) is g
    a = minitorch.rand(5, generator=g)
    assert g.get_offset() > 0
    clone = g.clone_state()
    assert minitorch.equal(minitorch.rand(5, generator=clone), minitorch.rand(5, generator=g.clone_state()))
    for copy_of in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert copy_of is not g and copy_of.initial_seed() == 3 and copy_of.device == g.device
        assert minitorch.equal(
            minitorch.rand(4, generator=copy_of), minitorch.rand(4, generator=g.clone_state())
        )
    g.set_offset(0)
    assert minitorch.equal(minitorch.rand(5, generator=g), a)  # back to the seed's start
    assert g.set_state(g.get_state()) is g
    for bad in ("a", 2.5, True, minitorch.tensor(3)):
        with pytest.raises(RuntimeError, match=f"manual_seed expected a long, but got {type(bad).__name__}"):
            g.manual_seed(bad)
    with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got int"):
        g.set_state(3)
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(minitorch.zeros(16))
    with pytest.raises(RuntimeError, match="of size 16 but found the input RNG state size to be 3"):
        g.set_state(minitorch.zeros(3, dtype=minitorch.uint8))
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        g.manual_seed(2**64)
    # minitorch.manual_seed returns the default CPU generator, usable as generator=
    d = minitorch.manual_seed(5)
    assert d is minitorch.default_generator and d.initial_seed() == 5
    first = minitorch.rand(3)
    assert minitorch.equal(minitorch.rand(3, generator=minitorch.manual_seed(5)), first)
    assert minitorch.manual_seed(2.5).initial_seed() == 2  # int(seed), as PyTorch


# ---- size= keyword forms

SIZE_KW = [
    ("full", lambda: minitorch.full(size=(2, 3), fill_value=2.0)),
    ("new_full", lambda: minitorch.zeros(1).new_full(size=(2, 3), fill_value=2.0)),
    ("empty", lambda: minitorch.empty(size=(2, 3))),
    ("zeros", lambda: minitorch.zeros(size=(2, 3))),
    ("ones", lambda: minitorch.ones(size=[2, 3])),
    ("rand", lambda: minitorch.rand(size=(2, 3), generator=minitorch.Generator())),
    ("randn", lambda: minitorch.randn(size=(2, 3))),
    ("randint", lambda: minitorch.randint(0, 5, size=(2, 3))),
    ("randint_high", lambda: minitorch.randint(5, size=(2, 3))),
    ("new_empty", lambda: minitorch.zeros(1).new_empty(size=(2, 3))),
    ("new_zeros", lambda: minitorch.zeros(1).new_zeros(size=(2, 3))),
    ("new_ones", lambda: minitorch.zeros(1).new_ones(size=(2, 3))),
]


@pytest.mark.parametrize("name,call", SIZE_KW, ids=[n for n, _ in SIZE_KW])
def test_size_keyword(name, call):
    assert call().shape == (2, 3)


def test_size_keyword_errors_in_pytorchs_words():
    assert minitorch.zeros(size=()).shape == ()
    assert minitorch.ones(size=minitorch.Size([2])).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'size' must be tuple of ints, not int$"):
        minitorch.zeros(size=2)
    with pytest.raises(TypeError, match=r"^empty\(\) got multiple values for argument 'size'$"):
        minitorch.empty(2, size=(3,))
    with pytest.raises(TypeError, match=r'^empty\(\) missing 1 required positional arguments: "size"$'):
        minitorch.empty()
    with pytest.raises(TypeError, match=r"^new_zeros\(\): argument 'size' must be tuple of ints, not str$"):
        minitorch.zeros(1).new_zeros(size="ab")
