"""minitorch.save / minitorch.load: round trips for every dtype and device, shared storages, containers,
map_location, safe loading (weights_only) and corrupt or truncated files."""

import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
from utils import ALL_DTYPES, make_array, make_tensor, to_np

import minitorch

HAS_CUDA = minitorch.cuda.is_available()


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    buf.seek(0)
    return minitorch.load(buf, **load_kwargs)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "expanded"])
def test_roundtrip_every_dtype_and_layout(device, dtype, layout):
    rng = np.random.default_rng(0)
    a = make_array((4, 6), dtype, rng)
    t = make_tensor(a, dtype, device, layout)
    r = roundtrip(t)
    assert r.dtype == dtype and r.device == t.device and r.shape == t.shape
    assert r.stride() == t.stride() and r.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(to_np(r), to_np(t))


def test_scalars_empty_and_requires_grad(device):
    z = minitorch.tensor(3.5, device=device)
    e = minitorch.empty(0, 5, device=device)
    g = minitorch.ones(3, device=device, requires_grad=True)
    rz, re, rg = roundtrip((z, e, g))
    assert rz.dim() == 0 and rz.item() == 3.5
    assert re.shape == (0, 5)
    assert rg.requires_grad and not roundtrip(g.detach()).requires_grad


def test_views_share_storage_after_loading(device):
    x = minitorch.arange(24.0, device=device).reshape(4, 6)
    out = roundtrip({"x": x, "row": x[1], "cols": x[:, 2:5:2], "t": x.t()})
    out["x"][1, 2] = -1.0
    assert out["row"][2].item() == -1.0
    assert out["cols"][1, 0].item() == -1.0
    assert out["t"][2, 1].item() == -1.0
    # one storage in the file, however many views
    buf = io.BytesIO()
    minitorch.save({"x": x, "row": x[1], "cols": x[:, 2:5:2]}, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert sum("/data/" in n for n in names) == 1


def test_containers_and_plain_values():
    sd = collections.OrderedDict(w=minitorch.randn(3, 2), b=minitorch.zeros(2))
    obj = {
        "state": sd,
        "epoch": 7,
        "lr": 0.25,
        "name": "run",
        "flags": (True, None),
        "sizes": [[2, 3]],
        "dtype": minitorch.bfloat16,
        "device": minitorch.device("cpu"),
        "set": {1, 2},
    }
    r = roundtrip(obj)
    assert isinstance(r["state"], collections.OrderedDict) and list(r["state"]) == ["w", "b"]
    np.testing.assert_array_equal(r["state"]["w"].numpy(), sd["w"].numpy())
    assert r["epoch"] == 7 and r["lr"] == 0.25 and r["name"] == "run" and r["flags"] == (True, None)
    assert r["dtype"] is minitorch.bfloat16 and r["device"] == minitorch.device("cpu") and r["set"] == {1, 2}


def test_paths(tmp_path):
    t = minitorch.arange(5)
    p = tmp_path / "ckpt.pt"
    minitorch.save(t, p)
    np.testing.assert_array_equal(minitorch.load(p).numpy(), np.arange(5))
    minitorch.save({"t": t}, str(p))
    np.testing.assert_array_equal(minitorch.load(str(p))["t"].numpy(), np.arange(5))


def test_map_location():
    t = minitorch.arange(4.0)
    r = roundtrip(t, map_location="cpu")
    assert r.device.type == "cpu"
    seen = []

    def mover(storage, location):
        seen.append(location)
        return storage

    r = roundtrip({"a": t, "b": t[1:]}, map_location=mover)
    assert seen == ["cpu"]  # one storage, loaded once
    assert r["b"][0].item() == 1.0
    r = roundtrip(t, map_location={"cpu": "cpu"})
    assert r.device.type == "cpu"


@pytest.mark.skipif(not HAS_CUDA, reason="needs a GPU")
def test_cuda_checkpoint_maps_to_cpu():
    t = minitorch.arange(6.0, device="cuda")
    r = roundtrip(t, map_location="cpu")
    assert r.device.type == "cpu" and r.tolist() == list(range(6))
    assert roundtrip(t).is_cuda
    r = roundtrip(minitorch.arange(3.0), map_location="cuda")
    assert r.is_cuda


@pytest.mark.skipif(HAS_CUDA, reason="checks the no-GPU message")
def test_cuda_checkpoint_without_gpu_needs_map_location():
    buf = io.BytesIO()
    minitorch.save(minitorch.arange(3.0), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        minitorch.load(buf, map_location={"cpu": "cuda"})


def _checkpoint_with_pickle(payload):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", payload)
        z.writestr("archive/version", "1\n")
    buf.seek(0)
    return buf


class _Evil:
    def __reduce__(self):
        import os

        return (os.system, ("touch /tmp/minitorch_pwned",))


def test_weights_only_refuses_code(tmp_path):
    marker = tmp_path / "ran"
    payload = pickle.dumps(_Evil()).replace(b"/tmp/minitorch_pwned", str(marker).encode())
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*GLOBAL (posix|os).system"):
        minitorch.load(_checkpoint_with_pickle(payload))
    assert not marker.exists()
    # arbitrary classes too, even harmless ones; weights_only=False loads them (the caller trusts the file)
    payload = pickle.dumps(collections.Counter("aab"), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="collections.Counter"):
        minitorch.load(_checkpoint_with_pickle(payload))
    assert minitorch.load(_checkpoint_with_pickle(payload), weights_only=False) == collections.Counter("aab")


def test_corrupt_and_truncated_files_raise():
    buf = io.BytesIO()
    minitorch.save({"w": minitorch.randn(50, 50), "b": minitorch.ones(50)}, buf)
    good = buf.getvalue()
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        minitorch.load(io.BytesIO(b"not a checkpoint at all"))
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        minitorch.load(io.BytesIO(b""))
    for cut in (len(good) // 3, len(good) // 2, len(good) - 30):
        with pytest.raises((RuntimeError, pickle.UnpicklingError)):
            minitorch.load(io.BytesIO(good[:cut]))
    # garbage in the pickle stream
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        minitorch.load(_checkpoint_with_pickle(b"\x80\x02garbage"))
    # a storage shorter than the file says
    z = zipfile.ZipFile(io.BytesIO(good))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for n in z.namelist():
            data = z.read(n)
            w.writestr(n, data[:-4] if "/data/" in n else data)
    with pytest.raises(RuntimeError, match="expected .* bytes"):
        minitorch.load(io.BytesIO(out.getvalue()))


def test_crafted_view_out_of_bounds_is_refused():
    # a pickle that asks for a view beyond its storage must raise, not read foreign memory
    buf = io.BytesIO()
    minitorch.save(minitorch.arange(4.0), buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    pkl = z.read("archive/data.pkl")
    # the pickled size tuple (4,) -> (4000,)
    bad = pkl.replace(b"K\x04\x85", b"M\xa0\x0f\x85", 1)
    assert bad != pkl
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for n in z.namelist():
            w.writestr(n, bad if n.endswith("data.pkl") else z.read(n))
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match="out of bounds"):
        minitorch.load(io.BytesIO(out.getvalue()))
