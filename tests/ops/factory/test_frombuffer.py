"""torch.frombuffer and torch.from_file: memory shared with the buffer or file, PyTorch's checks and wording."""

import array
import warnings

import numpy as np
import pytest

import minitorch as torch


def test_frombuffer_shares_memory():
    buf = bytearray(8)
    t = torch.frombuffer(buf, dtype=torch.uint8)
    buf[0] = 7
    t[1] = 9
    assert t[0].item() == 7 and buf[1] == 9
    assert t.dtype == torch.uint8 and t.shape == (8,)


def test_frombuffer_count_offset_dtypes():
    a = array.array("d", [1.5, 2.5, 3.5, 4.5])
    t = torch.frombuffer(a, dtype=torch.float64, count=2, offset=8)
    np.testing.assert_array_equal(t.numpy(), [2.5, 3.5])
    raw = np.arange(6, dtype=np.int16).tobytes()
    np.testing.assert_array_equal(torch.frombuffer(bytearray(raw), dtype=torch.int16).numpy(), np.arange(6))
    # bfloat16 has no NumPy dtype: the bytes are reinterpreted
    bf = torch.frombuffer(bytearray(b"\x80\x3f\x00\x40"), dtype=torch.bfloat16)
    assert bf.dtype == torch.bfloat16 and bf.tolist() == [1.0, 2.0]
    assert torch.frombuffer(bytearray(4), dtype=torch.float32, requires_grad=True).requires_grad


def test_frombuffer_readonly_warns():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        import minitorch._factories as f

        f._WARNED_READONLY = False
        t = torch.frombuffer(bytes(8), dtype=torch.float32)
    assert t.tolist() == [0.0, 0.0]
    assert any("The given buffer is not writable" in str(x.message) for x in w)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (
            {"dtype": torch.float32},
            r"buffer length \(10 bytes\) after offset \(0 bytes\) must be a multiple of element",
        ),
        ({"dtype": torch.float32, "count": 3}, r"requested buffer length \(3 \* 4 bytes\) after offset"),
        (
            {"dtype": torch.int16, "offset": 11},
            r"offset \(11 bytes\) must be non-negative and no greater than",
        ),
        ({"dtype": torch.int16, "offset": -1}, r"offset \(-1 bytes\) must be non-negative"),
        ({"dtype": torch.int16, "count": 0}, r"both buffer length \(10\) and count \(0\) must not be 0"),
    ],
)
def test_frombuffer_bad_arguments(kw, msg):
    with pytest.raises(ValueError, match=msg):
        torch.frombuffer(bytearray(10), **kw)


def test_frombuffer_bad_objects():
    with pytest.raises(ValueError, match="object does not implement Python buffer protocol"):
        torch.frombuffer([1, 2], dtype=torch.float32)
    with pytest.raises(ValueError, match=r"both buffer length \(0\) and count \(-1\)"):
        torch.frombuffer(bytearray(0), dtype=torch.float32)
    with pytest.raises(RuntimeError, match="non-contiguous buffers are not supported"):
        torch.frombuffer(memoryview(bytearray(8))[::2], dtype=torch.uint8)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dtype"'):
        torch.frombuffer(bytearray(8))


def test_from_file(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(bytes(range(16)))
    t = torch.from_file(str(p), size=4, dtype=torch.int32)
    np.testing.assert_array_equal(t.numpy(), np.frombuffer(bytes(range(16)), dtype=np.int32))
    assert torch.from_file(str(p)).shape == (0,) and torch.from_file(str(p)).dtype == torch.float32
    # private map: writes stay in the tensor
    t = torch.from_file(str(p), shared=False, size=1, dtype=torch.uint8)
    t[0] = 42
    assert p.read_bytes()[0] == 0 and t.item() == 42
    # shared map: writes reach the file
    t = torch.from_file(str(p), shared=True, size=1, dtype=torch.uint8)
    t[0] = 99
    del t
    assert p.read_bytes()[0] == 99
    # a shared map creates and grows its file
    q = tmp_path / "new.bin"
    t = torch.from_file(str(q), shared=True, size=3, dtype=torch.float64)
    assert t.tolist() == [0.0, 0.0, 0.0] and q.stat().st_size == 24


def test_from_file_errors(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(bytes(16))
    with pytest.raises(RuntimeError, match=r"size <16> is smaller than the required mapping size <20>"):
        torch.from_file(str(p), size=5, dtype=torch.float32)
    with pytest.raises(RuntimeError, match=r"unable to open file <.*> in read-only mode: No such file"):
        torch.from_file(str(tmp_path / "missing.bin"), size=2)
