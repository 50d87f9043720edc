"""torch.hub: local and cached-GitHub hubconf loading, list/help, the cache directory rules (against PyTorch),
download_url_to_file over file:// URLs with hash checks, load_state_dict_from_url and its checkpoints cache."""

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from urllib.error import URLError

import numpy as np
import pytest

import minitorch as torch
from minitorch import hub

HUBCONF = textwrap.dedent(
    '''
    import minitorch as torch
    import helper_mod

    dependencies = ["os"]

    def tiny(n=3, *, bias=True):
        """A tiny linear model."""
        torch.manual_seed(0)
        return torch.nn.Linear(n, helper_mod.OUT, bias=bias)

    def _private():
        return 1

    NOT_CALLABLE = 5
    '''
)


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    d = tmp_path / "hub"
    monkeypatch.setattr(hub, "_hub_dir", str(d))
    return d


def _write_repo(path, extra_deps=None):
    path.mkdir(parents=True)
    src = HUBCONF if extra_deps is None else HUBCONF.replace('["os"]', repr(["os", *extra_deps]))
    (path / "hubconf.py").write_text(src)
    (path / "helper_mod.py").write_text("OUT = 2\n")
    return path


def test_load_local(tmp_path):
    repo = _write_repo(tmp_path / "repo")
    m = hub.load(str(repo), "tiny", 4, source="local", bias=False)
    assert isinstance(m, torch.nn.Linear) and m.weight.shape == (2, 4) and m.bias is None
    assert str(repo) not in sys.path  # the directory is on sys.path only while hubconf runs
    with pytest.raises(RuntimeError, match="^Cannot find callable nope in hubconf$"):
        hub.load(str(repo), "nope", source="local")
    with pytest.raises(RuntimeError, match="^Cannot find callable NOT_CALLABLE in hubconf$"):
        hub.load(str(repo), "NOT_CALLABLE", source="local")
    with pytest.raises(ValueError, match="^Invalid input: model should be a string of function name$"):
        hub.load(str(repo), 3, source="local")
    with pytest.raises(ValueError, match='^Unknown source: "ftp". Allowed values: "github" \\| "local".$'):
        hub.load(str(repo), "tiny", source="ftp")
    dep = _write_repo(tmp_path / "repo2", extra_deps=["no_such_pkg_xyz"])
    with pytest.raises(RuntimeError, match="^Missing dependencies: no_such_pkg_xyz$"):
        hub.load(str(dep), "tiny", source="local")


def test_github_uses_cache_and_trusted_list(hub_dir, monkeypatch, capsys):
    def offline(*a, **k):
        raise URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(hub, "urlopen", offline)
    _write_repo(hub_dir / "someone_models_main")
    m = hub.load("someone/models", "tiny", trust_repo=True)
    assert m.weight.shape == (2, 3)
    assert "Using cache found in" in capsys.readouterr().err
    # a cached repo counts as trusted (PyTorch's legacy rule), so it is not added to the list
    assert (hub_dir / "trusted_list").read_text().splitlines() == []
    assert hub.list("someone/models:main", trust_repo="check") == ["tiny"]
    assert hub.help("someone/models:main", "tiny") == "A tiny linear model."
    # an untrusted repo asks; "n" refuses with PyTorch's words
    _write_repo(hub_dir / "other_repo_dev")
    (hub_dir / "trusted_list").write_text("")
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    # a repo that was downloaded before counts as trusted (legacy rule), so this one loads
    assert hub.list("other/repo:dev", trust_repo="check") == ["tiny"]
    with pytest.raises(Exception, match="^Untrusted repository.$"):
        hub.list("other/repo:dev", trust_repo=False)


def test_github_offline_without_cache(hub_dir, monkeypatch):
    def offline(*a, **k):
        raise URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(hub, "urlopen", offline)
    with pytest.raises(
        RuntimeError,
        match="It looks like there is no internet connection and the repo could not be found in the cache",
    ):
        hub.load("nobody/nothing", "tiny", trust_repo=True)
    # with a ref and no cache, the validation request itself fails, as PyTorch's does
    with pytest.raises(URLError):
        hub.load("nobody/nothing:v1", "tiny", trust_repo=True)


def test_github_download_from_zip(hub_dir, tmp_path, monkeypatch):
    # the archive GitHub would serve, given through a file:// URL
    src = _write_repo(tmp_path / "src" / "owner-proj-abc123")
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("owner-proj-abc123/", "")
        for f in src.iterdir():
            z.write(f, f"owner-proj-abc123/{f.name}")
    monkeypatch.setattr(hub, "_git_archive_link", lambda o, n, r: archive.as_uri())
    m = hub.load("owner/proj:v2", "tiny", trust_repo=True, skip_validation=True)
    assert m.weight.shape == (2, 3)
    assert (hub_dir / "owner_proj_v2" / "hubconf.py").exists() and not (hub_dir / "v2.zip").exists()
    assert (hub_dir / "trusted_list").read_text().splitlines() == ["owner_proj"]


def test_get_dir_rules_match_pytorch(tmp_path):
    home = str(tmp_path / "home")
    cases = [
        {"TORCH_HOME": str(tmp_path / "th")},
        {"XDG_CACHE_HOME": str(tmp_path / "xdg")},
        {"TORCH_HOME": "~/th2", "XDG_CACHE_HOME": str(tmp_path / "xdg")},
        {},
    ]
    expected = [
        os.path.join(str(tmp_path / "th"), "hub"),
        os.path.join(str(tmp_path / "xdg"), "torch", "hub"),
        os.path.join(home, "th2", "hub"),
        os.path.join(home, ".cache", "torch", "hub"),
        os.path.join(home, "elsewhere"),
    ]
    # get_dir reads the environment at each call: one process runs every case
    script = (
        "import json, os, sys\n"
        "import {m}.hub as h\n"
        "out = []\n"
        "for case in json.loads(sys.argv[1]):\n"
        "    for k in ('TORCH_HOME', 'XDG_CACHE_HOME'): os.environ.pop(k, None)\n"
        "    os.environ.update(case)\n"
        "    out.append(h.get_dir())\n"
        "h.set_dir('~/elsewhere'); out.append(h.get_dir())\n"
        "print(json.dumps(out))\n"
    )
    # the minitorch under test (an installed wheel in CI, the source tree in a dev build), not ../python
    env = dict(os.environ, HOME=home, PYTHONPATH=os.path.dirname(os.path.dirname(torch.__file__)))
    env.pop("TORCH_HUB", None)
    arg = json.dumps(cases)
    ours = subprocess.run(
        [sys.executable, "-c", script.format(m="minitorch"), arg],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    assert json.loads(ours) == expected
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if py and os.path.exists(py):
        theirs = subprocess.run(
            [py, "-c", script.format(m="torch"), arg], check=True, capture_output=True, text=True, env=env
        ).stdout
        assert json.loads(theirs) == expected


def test_download_url_to_file_and_hash(tmp_path):
    payload = os.urandom(300_000)  # more than one read chunk
    src = tmp_path / "blob.bin"
    src.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    dst = tmp_path / "out"
    hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:10], progress=False)
    assert dst.read_bytes() == payload
    with pytest.raises(RuntimeError, match=f'^invalid hash value \\(expected "0000", got "{digest}"\\)$'):
        hub.download_url_to_file(src.as_uri(), str(tmp_path / "bad"), hash_prefix="0000", progress=False)
    assert not (tmp_path / "bad").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    with pytest.raises(URLError):
        hub.download_url_to_file((tmp_path / "missing").as_uri(), str(tmp_path / "x"), progress=False)


def test_load_state_dict_from_url(hub_dir, tmp_path):
    sd = {"w": torch.arange(6.0).reshape(2, 3).t(), "b": torch.zeros(0)}
    raw = tmp_path / "raw.pth"
    torch.save(sd, str(raw))
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    named = tmp_path / f"model-{digest[:8]}.pth"
    named.write_bytes(raw.read_bytes())
    got = hub.load_state_dict_from_url(named.as_uri(), check_hash=True, progress=False)
    np.testing.assert_array_equal(got["w"].numpy(), sd["w"].numpy())
    assert got["b"].shape == (0,)
    cached = hub_dir / "checkpoints" / named.name
    assert cached.exists()
    named.unlink()  # now only the cache has it
    again = hub.load_state_dict_from_url(named.as_uri(), progress=False)
    np.testing.assert_array_equal(again["w"].numpy(), sd["w"].numpy())
    # file_name and model_dir
    hub.load_state_dict_from_url(
        raw.as_uri(), model_dir=str(tmp_path / "md"), file_name="renamed.pt", progress=False
    )
    assert (tmp_path / "md" / "renamed.pt").exists()
    # a wrong hash in the name
    bad = tmp_path / "model-deadbeef.pth"
    bad.write_bytes(raw.read_bytes())
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        hub.load_state_dict_from_url(bad.as_uri(), check_hash=True, progress=False)
    assert not (hub_dir / "checkpoints" / bad.name).exists()
    # map_location reaches load
    got = hub.load_state_dict_from_url(raw.as_uri(), map_location="cpu", file_name="raw2.pth", progress=False)
    assert got["w"].device.type == "cpu"


def test_torch_hub_attribute():
    assert torch.hub is hub and torch.hub.get_dir() == hub.get_dir()
