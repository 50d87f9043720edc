"""torch.hub: loading models from a repository's hubconf.py (a GitHub repo cached under get_dir(), or a local
directory), and downloading checkpoints into the hub cache (download_url_to_file, load_state_dict_from_url).

PyTorch's rules, kept: the cache is $TORCH_HOME/hub, TORCH_HOME defaulting to $XDG_CACHE_HOME/torch and that to
~/.cache; a GitHub repo "owner/name[:ref]" lives in <hub>/<owner>_<name>_<ref> and is used from there when present
(without a ref, "main" then "master" when GitHub cannot be reached); the trusted_list file and trust_repo;
checkpoints in <hub>/checkpoints, named after the URL, checked against the hash in their name on request. URLs
are read with urllib, so file:// URLs work offline.
"""

import contextlib
import errno
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from minitorch import serialization

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

# matches bfd8deac from resnet18-bfd8deac.pth
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
_hub_dir = None


@contextlib.contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _remove_if_exists(path):
    if os.path.exists(path):
        if os.path.isfile(path):
            os.remove(path)
        else:
            shutil.rmtree(path)


def _safe_extract_zip(zip_file, extract_to):
    """Extracts every member, refusing absolute paths and members that would land outside extract_to."""
    root = os.path.realpath(extract_to)
    for member in zip_file.infolist():
        if os.path.isabs(member.filename) or member.filename.startswith(("/", "\\")):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        target = os.path.realpath(os.path.join(root, member.filename))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
    zip_file.extractall(root)


def _get_torch_home():
    return os.path.expanduser(
        os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch"))
    )


def get_dir():
    """The hub cache directory: set_dir's, else $TORCH_HOME/hub (TORCH_HOME defaults to
    $XDG_CACHE_HOME/torch, XDG_CACHE_HOME to ~/.cache)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Sets the hub cache directory (~ expanded)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _parse_repo_info(github):
    if ":" in github:
        repo_info, ref = github.split(":")
    else:
        repo_info, ref = github, None
    repo_owner, repo_name = repo_info.split("/")
    if ref is None:
        # the default branch: main if it exists, else master; offline, whichever is cached
        try:
            with urlopen(f"https://github.com/{repo_owner}/{repo_name}/tree/main/"):
                ref = "main"
        except HTTPError as e:
            if e.code == 404:
                ref = "master"
            else:
                raise
        except URLError as e:
            for possible_ref in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{repo_owner}_{repo_name}_{possible_ref}"):
                    ref = possible_ref
                    break
            if ref is None:
                raise RuntimeError(
                    "It looks like there is no internet connection and the repo could not be found in the cache "
                    f"({get_dir()})"
                ) from e
    return repo_owner, repo_name, ref


def _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    filepath = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(filepath):
        Path(filepath).touch()
    with open(filepath, encoding="utf-8") as file:
        trusted_repos = tuple(line.strip() for line in file)
    # a repo downloaded before the trusted list existed counts as trusted
    trusted_repos_legacy = next(os.walk(hub_dir))[1]
    owner_name = f"{repo_owner}_{repo_name}"
    is_trusted = (
        owner_name in trusted_repos
        or owner_name_branch in trusted_repos_legacy
        or repo_owner in _TRUSTED_REPO_OWNERS
    )
    if (trust_repo is False) or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories and as such cannot "
            "be downloaded. Do you trust this repository and wish to add it to the trusted list of repositories "
            "(y/N)?"
        )
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002  (PyTorch's class)
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(filepath, "a", encoding="utf-8") as file:
            file.write(owner_name + "\n")


def _git_archive_link(repo_owner, repo_name, ref):
    return f"https://github.com/{repo_owner}/{repo_name}/zipball/{ref}"


def _validate_not_a_forked_repo(repo_owner, repo_name, ref):
    import json

    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for url_prefix in (
        f"https://api.github.com/repos/{repo_owner}/{repo_name}/branches",
        f"https://api.github.com/repos/{repo_owner}/{repo_name}/tags",
    ):
        page = 0
        while True:
            page += 1
            url = f"{url_prefix}?per_page=100&page={page}"
            try:
                response = json.loads(_read_url(Request(url, headers=headers)))
            except HTTPError:
                headers.pop("Authorization", None)
                response = json.loads(_read_url(Request(url, headers=headers)))
            if not response:
                break
            for br in response:
                if br["name"] == ref or br["commit"]["sha"].startswith(ref):
                    return
    raise ValueError(
        f"Cannot find {ref} in https://github.com/{repo_owner}/{repo_name}. If it's a commit from a forked repo, "
        "please call hub.load() with forked repo directly."
    )


def _read_url(url):
    with urlopen(url) as r:
        return r.read().decode(r.headers.get_content_charset("utf-8"))


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_owner, repo_name, ref = _parse_repo_info(github)
    normalized_br = ref.replace("/", "_")
    owner_name_branch = f"{repo_owner}_{repo_name}_{normalized_br}"
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo=trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(repo_owner, repo_name, ref)
    cached_file = os.path.join(hub_dir, normalized_br + ".zip")
    _remove_if_exists(cached_file)
    url = _git_archive_link(repo_owner, repo_name, ref)
    sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
    download_url_to_file(url, cached_file, progress=False)
    with zipfile.ZipFile(cached_file) as cached_zipfile:
        extracted_repo = os.path.join(hub_dir, cached_zipfile.infolist()[0].filename)
        _remove_if_exists(extracted_repo)
        _safe_extract_zip(cached_zipfile, hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted_repo, repo_dir)
    return repo_dir


def _check_dependencies(m):
    dependencies = getattr(m, VAR_DEPENDENCY, None) if VAR_DEPENDENCY in dir(m) else None
    if dependencies is not None:
        missing = [pkg for pkg in dependencies if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")  # noqa: TRY004
    _check_dependencies(m)
    func = getattr(m, model) if model in dir(m) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _hub_module(repo_dir):
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The public callables (entrypoints) of a GitHub repo's hubconf.py."""
    repo_dir = _get_cache_or_reload(
        github, force_reload, trust_repo, verbose=verbose, skip_validation=skip_validation
    )
    hub_module = _hub_module(repo_dir)
    return [f for f in dir(hub_module) if callable(getattr(hub_module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of entrypoint model in a GitHub repo's hubconf.py."""
    repo_dir = _get_cache_or_reload(
        github, force_reload, trust_repo, verbose=True, skip_validation=skip_validation
    )
    return _load_entry_from_hubconf(_hub_module(repo_dir), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):  # fmt: skip
    """Calls entrypoint model(*args, **kwargs) of the hubconf.py of a GitHub repo ("owner/name[:ref]", cached
    under get_dir()) or of a local directory (source="local")."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(
            repo_or_dir, force_reload, trust_repo, verbose=verbose, skip_validation=skip_validation
        )
    return _load_local(repo_or_dir, model, *args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _add_to_sys_path(hubconf_dir):
        hub_module = _import_module(MODULE_HUBCONF, os.path.join(hubconf_dir, MODULE_HUBCONF))
        entry = _load_entry_from_hubconf(hub_module, model)
        return entry(*args, **kwargs)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads url to dst (through a temporary file moved into place); with hash_prefix, RuntimeError unless
    the SHA-256 of the contents starts with it."""
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp_dst = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            f = open(tmp_dst, "w+b")  # noqa: SIM115  (closed in the finally below)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    req = Request(url, headers={"User-Agent": "torch.hub"})
    try:
        with urlopen(req) as u:
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            size = u.info().get("Content-Length")
            total = int(size) if size else None
            done = 0
            while True:
                buffer = u.read(READ_DATA_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                done += len(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
                if progress:
                    sys.stderr.write(f"\r{done}/{total or '?'} bytes")
            if progress:
                sys.stderr.write("\n")
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[: len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def _is_legacy_zip_format(filename):
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _legacy_zip_load(filename, model_dir, map_location, weights_only):
    warnings.warn(
        "Falling back to the old format < 1.6. This support will be deprecated in favor of default zipfile "
        "format introduced in 1.6. Please redo torch.save() to save it in the new zipfile format.",
        FutureWarning,
        stacklevel=3,
    )
    with zipfile.ZipFile(filename) as f:
        members = f.infolist()
        if len(members) != 1:
            raise RuntimeError("Only one file(not dir) is allowed in the zipfile")
        _safe_extract_zip(f, model_dir)
        extracted_file = os.path.join(model_dir, members[0].filename)
    return serialization.load(extracted_file, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):  # fmt: skip
    """Loads the object saved at url, downloading it first into model_dir (default <hub>/checkpoints) unless
    a file of that name is already there; check_hash verifies the hash prefix in the file's name
    (name-<sha256 prefix>.ext)."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return serialization.load(cached_file, map_location=map_location, weights_only=weights_only)
