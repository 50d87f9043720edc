"""The launcher, python -m minitorch.distributed.run (torchrun; issue 33): torchrun's options and environment,
worker output routing (--redirects, --tee, --log-dir, --local-ranks-filter), restarts of the whole worker group
(--max-restarts), ChildFailedError with torchrun's failure table and a non-zero exit when workers fail, @record,
static and c10d rendezvous across several launchers (nodes) on this machine. Tiny scripts in subprocesses, each
with a timeout."""

import ast
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from dist_harness import PKG_ROOT, free_port

import minitorch.distributed as dist
from minitorch.distributed import run as launcher
from minitorch.distributed.elastic.multiprocessing import Std
from minitorch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure, record

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="gloo is not built in")

ENV_KEYS = [
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "GROUP_WORLD_SIZE",
    "ROLE_RANK",
    "ROLE_NAME",
    "ROLE_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "TORCHELASTIC_RESTART_COUNT",
    "TORCHELASTIC_MAX_RESTARTS",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_USE_AGENT_STORE",
    "TORCHELASTIC_ERROR_FILE",
    "OMP_NUM_THREADS",
]

# prints its environment; with argv 'fail R N' the worker of global rank R exits 7 on attempts before N, and
# with 'fail R N sleep' the others then sleep (so the launcher must stop them)
PLAIN = textwrap.dedent(
    f"""
    import os, sys, time
    env = {{k: os.environ.get(k) for k in {ENV_KEYS!r}}}
    # one write per line: workers share the console, and print() writes a line's end separately
    os.write(1, f"ENV {{env}}\\n".encode())
    os.write(1, f"out of {{env['RANK']}}\\n".encode())
    os.write(2, f"err of {{env['RANK']}}\\n".encode())
    if len(sys.argv) > 1 and sys.argv[1] == "fail":
        failing = int(env["TORCHELASTIC_RESTART_COUNT"]) < int(sys.argv[3])
        if env["RANK"] == sys.argv[2] and failing:
            sys.exit(7)
        if failing and len(sys.argv) > 4 and sys.argv[4] == "sleep":
            time.sleep(120)
    """
)

# a process group over the agent's store: every rank adds rank + 1, on every attempt
COLLECTIVE = textwrap.dedent(
    """
    import os, sys
    import minitorch, minitorch.distributed as dist
    rank, attempt = int(os.environ["RANK"]), int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    if len(sys.argv) > 2 and sys.argv[1] == "fail" and rank == int(sys.argv[2]) and attempt < int(sys.argv[3]):
        sys.exit(3)  # before joining: the others wait in init_process_group until the group restarts
    dist.init_process_group("gloo")
    assert dist.get_rank() == rank and dist.get_world_size() == int(os.environ["WORLD_SIZE"])
    assert rank == int(os.environ["GROUP_RANK"]) * int(os.environ["LOCAL_WORLD_SIZE"]) + int(os.environ["LOCAL_RANK"])
    t = minitorch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    os.write(1, f"attempt {attempt} rank {rank} of {dist.get_world_size()} sum {t.item()}\\n".encode())
    dist.destroy_process_group()
    """
)


def _env():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG_ROOT, os.environ.get("PYTHONPATH", "")]))
    for k in list(env):
        if k.startswith(("PET_", "TORCHELASTIC_")) or k == "OMP_NUM_THREADS":
            del env[k]
    return env


def launch(tmp_path, *options, script=PLAIN, args=(), timeout=120, env=None):
    path = tmp_path / "train.py"
    path.write_text(script)
    cmd = [sys.executable, "-m", "minitorch.distributed.run", *options, str(path), *args]
    return subprocess.run(
        cmd, env=env or _env(), capture_output=True, text=True, timeout=timeout, check=False
    )


def envs(out):
    """{rank: the environment a worker printed} (the last attempt's, when there were several)."""
    got = {}
    for line in out.splitlines():
        if "ENV {" in line:
            e = ast.literal_eval(line[line.index("{") :])
            got[int(e["RANK"])] = e
    return got


def test_environment_of_each_worker(tmp_path):
    p = launch(tmp_path, "--nproc-per-node=3", "--max_restarts=0", "--role=trainer")
    assert p.returncode == 0, p.stderr
    got = envs(p.stdout)
    assert sorted(got) == [0, 1, 2]
    run_ids = {e["TORCHELASTIC_RUN_ID"] for e in got.values()}
    ports = {e["MASTER_PORT"] for e in got.values()}
    assert len(run_ids) == 1 and len(ports) == 1 and int(ports.pop()) > 0
    for r, e in got.items():
        assert e["LOCAL_RANK"] == e["ROLE_RANK"] == str(r)
        assert e["WORLD_SIZE"] == e["LOCAL_WORLD_SIZE"] == e["ROLE_WORLD_SIZE"] == "3"
        assert (e["GROUP_RANK"], e["GROUP_WORLD_SIZE"], e["ROLE_NAME"]) == ("0", "1", "trainer")
        assert e["MASTER_ADDR"] == "localhost" and e["TORCHELASTIC_USE_AGENT_STORE"] == "True"
        assert (e["TORCHELASTIC_RESTART_COUNT"], e["TORCHELASTIC_MAX_RESTARTS"]) == ("0", "0")
        assert e["OMP_NUM_THREADS"] == "1"
        assert e["TORCHELASTIC_ERROR_FILE"].endswith(f"/attempt_0/{r}/error.json")
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in p.stderr
    # a user's own OMP_NUM_THREADS is kept, silently
    p = launch(tmp_path, "--nproc_per_node=2", env=dict(_env(), OMP_NUM_THREADS="2"))
    assert {e["OMP_NUM_THREADS"] for e in envs(p.stdout).values()} == {
        "2"
    } and "OMP_NUM_THREADS" not in p.stderr
    # one worker: no thread cap
    p = launch(tmp_path)
    assert envs(p.stdout)[0]["OMP_NUM_THREADS"] is None


def test_failed_worker_raises_child_failed_error_and_exits_nonzero(tmp_path):
    t0 = time.monotonic()
    p = launch(tmp_path, "--nproc-per-node=3", args=("fail", "1", "99", "sleep"))
    assert time.monotonic() - t0 < 60  # the sleeping workers were stopped, not waited for
    assert p.returncode == 1, p.stderr
    err = p.stderr
    assert "ChildFailedError" in err and "train.py FAILED" in err
    assert "Root Cause (first observed failure):" in err and "<NO_OTHER_FAILURES>" in err
    assert "rank      : 1 (local_rank: 1)" in err and "exitcode  : 7 (pid: " in err
    assert "error_file: <N/A>" in err and "To enable traceback see" in err
    assert "failed (exitcode: 7) local_rank: 1" in err


def test_main_raises_in_process_and_record_shows_the_traceback(tmp_path):
    script = tmp_path / "rec.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from minitorch.distributed.elastic.multiprocessing.errors import record

            @record
            def main():
                if os.environ["LOCAL_RANK"] == "1":
                    raise ValueError("bad batch 17")

            main()
            """
        )
    )
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = _env()["PYTHONPATH"]
    try:
        with pytest.raises(ChildFailedError) as info:
            launcher.main(["--nproc-per-node=2", "--monitor-interval=0.05", str(script)])
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
        os.environ.pop("OMP_NUM_THREADS", None)
    e = info.value
    rank, failure = e.get_first_failure()
    assert rank == 1 and isinstance(failure, ProcessFailure) and failure.exitcode == 1
    assert failure.error_file.endswith("error.json") and os.path.isfile(failure.error_file)
    msg = str(e)
    assert (
        "rec.py FAILED" in msg
        and "ValueError: bad batch 17" in msg
        and 'raise ValueError("bad batch 17")' in msg
    )


def test_elastic_launch_of_a_python_function(monkeypatch, tmp_path):
    from minitorch.distributed.elastic.multiprocessing import DefaultLogsSpecs
    from minitorch.distributed.launcher import LaunchConfig, elastic_launch

    monkeypatch.setenv("PYTHONPATH", _env()["PYTHONPATH"])
    monkeypatch.setenv("OMP_NUM_THREADS", "1")

    def config():
        return LaunchConfig(
            min_nodes=1,
            max_nodes=1,
            nproc_per_node=2,
            rdzv_backend="c10d",
            rdzv_endpoint="localhost:0",
            max_restarts=0,
            logs_specs=DefaultLogsSpecs(log_dir=str(tmp_path)),
        )

    # a picklable function runs in each worker; its return values come back by global rank
    assert elastic_launch(config(), os.getenv)("RANK") == {0: "0", 1: "1"}
    with pytest.raises(ChildFailedError) as info:
        elastic_launch(config(), int)("not a number")
    assert "int FAILED" in str(info.value) and "ValueError: invalid literal for int()" in str(info.value)


def test_record_decorator_writes_the_error_file(tmp_path, monkeypatch):
    path = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))

    @record
    def boom():
        raise KeyError("k")

    with pytest.raises(KeyError):
        boom()
    failure = ProcessFailure(local_rank=0, pid=1, exitcode=1, error_file=str(path))
    assert (
        failure.message["message"] == "KeyError: 'k'"
        and "boom" in failure.message["extraInfo"]["py_callstack"]
    )

    @record
    def done():
        raise SystemExit(0)

    assert done() is None
    killed = ProcessFailure(local_rank=2, pid=5, exitcode=-9, error_file="")
    assert killed.message == "Signal 9 (SIGKILL) received by PID 5" and killed.error_file == "<N/A>"
    table = str(ChildFailedError("job", {4: killed}))
    assert "exitcode  : -9 (pid: 5)  (SIGKILL)" in table and "rank      : 4 (local_rank: 2)" in table
    with pytest.raises(AssertionError):
        ChildFailedError("job", {})


def test_max_restarts_restarts_the_whole_group(tmp_path):
    logs = tmp_path / "logs"
    p = launch(
        tmp_path,
        "--nproc-per-node=2",
        "--max-restarts=2",
        f"--log-dir={logs}",
        "--redirects=3",
        args=("fail", "1", "2", "sleep"),
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("worker group failed; restarting it") == 2
    (run_dir,) = logs.iterdir()
    assert sorted(d.name for d in run_dir.iterdir()) == ["attempt_0", "attempt_1", "attempt_2"]
    for a in range(3):
        for r in range(2):
            e = envs((run_dir / f"attempt_{a}" / str(r) / "stdout.log").read_text())[r]
            assert e["TORCHELASTIC_RESTART_COUNT"] == str(a) and e["TORCHELASTIC_MAX_RESTARTS"] == "2"
            assert e["TORCHELASTIC_ERROR_FILE"] == str(run_dir / f"attempt_{a}" / str(r) / "error.json")
    # out of restarts: the failure is final
    p = launch(tmp_path, "--nproc-per-node=2", "--max-restarts=1", args=("fail", "1", "5"))
    assert p.returncode == 1 and "ChildFailedError" in p.stderr and "exitcode  : 7" in p.stderr
    assert sorted(e["TORCHELASTIC_RESTART_COUNT"] for e in envs(p.stdout).values()) == ["1", "1"]


@needs_gloo
def test_process_group_over_the_agent_store_after_a_restart(tmp_path):
    p = launch(tmp_path, "--nproc-per-node=2", "--max-restarts=1", script=COLLECTIVE, args=("fail", "1", "1"))
    assert p.returncode == 0, p.stderr
    # attempt 0 never formed its group (rank 1 left first); attempt 1's met under its own store prefix
    assert "attempt 0 rank" not in p.stdout
    assert "attempt 1 rank 0 of 2 sum 3.0" in p.stdout and "attempt 1 rank 1 of 2 sum 3.0" in p.stdout


def test_redirects_tee_and_the_log_directory(tmp_path):
    logs = tmp_path / "logs"
    p = launch(tmp_path, "--nproc-per-node=2", f"--log-dir={logs}", "--redirects=3")
    assert p.returncode == 0, p.stderr
    assert "out of" not in p.stdout and "err of" not in p.stderr  # everything went to the files
    (run_dir,) = logs.iterdir()
    run_id = envs((run_dir / "attempt_0" / "0" / "stdout.log").read_text())[0]["TORCHELASTIC_RUN_ID"]
    assert run_dir.name.startswith(run_id + "_")
    for r in range(2):
        d = run_dir / "attempt_0" / str(r)
        assert (
            f"out of {r}" in (d / "stdout.log").read_text()
            and (d / "stderr.log").read_text() == f"err of {r}\n"
        )
    # per local rank: rank 0's stdout to its file, rank 1's stderr to its file
    logs2 = tmp_path / "logs2"
    p = launch(tmp_path, "--nproc-per-node=2", f"--log_dir={logs2}", "-r", "0:1,1:2")
    (run_dir,) = logs2.iterdir()
    assert "out of 0" not in p.stdout and "out of 1" in p.stdout
    assert "err of 0" in p.stderr and "err of 1" not in p.stderr
    assert "out of 0" in (run_dir / "attempt_0" / "0" / "stdout.log").read_text()
    assert (run_dir / "attempt_0" / "1" / "stderr.log").read_text() == "err of 1\n"
    assert not (run_dir / "attempt_0" / "0" / "stderr.log").exists()
    # tee: the console too, each line prefixed; the files unprefixed
    logs3 = tmp_path / "logs3"
    p = launch(tmp_path, "--nproc-per-node=2", f"--log-dir={logs3}", "--tee=3", "--role=w")
    assert "[w0]:out of 0" in p.stdout and "[w1]:out of 1" in p.stdout and "[w1]:err of 1" in p.stderr
    (run_dir,) = logs3.iterdir()
    assert (run_dir / "attempt_0" / "1" / "stderr.log").read_text() == "err of 1\n"
    p = launch(
        tmp_path, "--nproc-per-node=2", "-t", "1", "--log-line-prefix-template=<${rank}|${local_rank}> "
    )
    assert "<1|1> out of 1" in p.stdout and "err of 1" in p.stderr and "<1|1> err" not in p.stderr
    # duplicate filters copy matching lines to the attempt's filtered log
    logs4 = tmp_path / "logs4"
    p = launch(
        tmp_path, "--nproc-per-node=2", f"--log-dir={logs4}", "--duplicate-stdout-filters=out of 1,nothing"
    )
    (run_dir,) = logs4.iterdir()
    assert (run_dir / "attempt_0" / "filtered_stdout.log").read_text() == "out of 1\n"
    assert "out of 0" in p.stdout and "out of 1" in p.stdout


def test_local_ranks_filter(tmp_path):
    p = launch(tmp_path, "--nproc-per-node=3", "--local-ranks-filter=1,2")
    assert p.returncode == 0
    assert "out of 0" not in p.stdout and "err of 0" not in p.stderr
    assert "out of 1" in p.stdout and "out of 2" in p.stdout and "err of 2" in p.stderr
    p = launch(tmp_path, "--nproc-per-node=2", "--local_ranks_filter=a")
    assert p.returncode == 1 and "--local_ranks_filter must be a comma-separated list of integers" in p.stderr


def test_module_no_python_and_run_path(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "job.py").write_text(
        "import os, sys\nos.write(1, f\"module rank {os.environ['RANK']} {sys.argv[1:]}\\n\".encode())\n"
    )
    env = dict(_env(), PYTHONPATH=os.pathsep.join([str(tmp_path), _env()["PYTHONPATH"]]))
    cmd = [
        sys.executable,
        "-m",
        "minitorch.distributed.run",
        "--nproc-per-node=2",
        "-m",
        "mypkg.job",
        "--lr",
        "1",
    ]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    assert "module rank 0 ['--lr', '1']" in p.stdout and "module rank 1 ['--lr', '1']" in p.stdout
    exe = tmp_path / "job.sh"
    exe.write_text('#!/bin/sh\necho "shell rank $RANK of $WORLD_SIZE: $1"\n')
    exe.chmod(0o755)
    cmd = [
        sys.executable,
        "-m",
        "minitorch.distributed.run",
        "--nproc-per-node=2",
        "--no-python",
        str(exe),
        "x",
    ]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert "shell rank 0 of 2: x" in p.stdout and "shell rank 1 of 2: x" in p.stdout
    script = tmp_path / "rp.py"
    script.write_text("import sys\nprint('run_path', __name__, sys.argv)\n")
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--run-path", str(script), "a"]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0 and f"run_path __main__ ['{script}', 'a']" in p.stdout
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--no-python", "-m", "x"]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 1 and "Don't use both the '--no-python' flag and the '--module' flag" in p.stderr


def test_option_parsing(monkeypatch):
    # config_from_args sets OMP_NUM_THREADS=1 for the workers, as PyTorch's launcher: undone after the test
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert launcher.parse_min_max_nnodes("2") == (2, 2) and launcher.parse_min_max_nnodes("1:4") == (1, 4)
    with pytest.raises(RuntimeError, match='nnodes=1:2:3 is not in "MIN:MAX" format'):
        launcher.parse_min_max_nnodes("1:2:3")
    assert launcher.determine_local_world_size("5") == 5
    assert launcher.determine_local_world_size("cpu") == os.cpu_count()
    if not launcher.cuda.is_available():
        assert launcher.determine_local_world_size("auto") == os.cpu_count()
        with pytest.raises(ValueError, match="Cuda is not available."):
            launcher.determine_local_world_size("gpu")
    with pytest.raises(ValueError, match="Unsupported nproc_per_node value: tpu"):
        launcher.determine_local_world_size("tpu")
    a = launcher.parse_args(
        ["--nproc_per_node=2", "--rdzv-conf=join_timeout=5,last_call_timeout=1", "t.py", "--x", "1"]
    )
    assert (a.nproc_per_node, a.training_script, a.training_script_args) == ("2", "t.py", ["--x", "1"])
    assert (a.nnodes, a.rdzv_backend, a.max_restarts, a.monitor_interval, a.role) == (
        "1:1",
        "static",
        0,
        0.1,
        "default",
    )
    config, cmd, args = launcher.config_from_args(a)
    assert config.rdzv_configs["join_timeout"] == "5" and config.rdzv_configs["rank"] == 0
    assert cmd == sys.executable and args == ["-u", "t.py", "--x", "1"]
    assert config.logs_specs._redirects == Std.NONE
    with pytest.raises(ValueError, match="does not match"):
        launcher.config_from_args(launcher.parse_args(["--redirects=5", "t.py"]))
    with pytest.raises(AssertionError, match="min_nodes must be > 0 and <= max_nodes"):
        launcher.config_from_args(launcher.parse_args(["--nnodes=3:2", "t.py"]))
    assert Std.from_str("0:1,1:3") == {0: Std.OUT, 1: Std.ALL} and Std.from_str("2") == Std.ERR


def test_numa_binding_and_print_completion_options(capsys):
    # torchrun 2.15's options: --numa-binding takes torch.numa's modes (checked, then not applied here)
    a = launcher.parse_args(["--numa-binding=socket", "t.py"])
    assert a.numa_binding == "socket" and launcher.parse_args(["t.py"]).numa_binding is None
    assert launcher.parse_args(["--numa_binding", "core-complex", "t.py"]).numa_binding == "core-complex"
    with pytest.raises(SystemExit):
        launcher.parse_args(["--numa-binding=foo", "t.py"])
    assert (
        "invalid choice: 'foo' (choose from 'node', 'socket', 'exclusive', 'core-complex')"
        in capsys.readouterr().err
    )
    # --print-completion needs the optional shtab package: without it, torchrun's message and exit status 1
    try:
        import shtab  # noqa: F401
    except ImportError:
        with pytest.raises(SystemExit) as e:
            launcher.parse_args(["--print-completion", "bash", "t.py"])
        assert e.value.code == 1
        assert (
            capsys.readouterr().err == "--print-completion requires the 'shtab' package: pip install shtab\n"
        )
    with pytest.raises(SystemExit):
        launcher.parse_args(["--print-completion", "fish", "t.py"])
    assert "invalid choice: 'fish'" in capsys.readouterr().err


def test_pet_environment_variables_set_defaults(monkeypatch):
    monkeypatch.setenv("PET_NPROC_PER_NODE", "4")
    monkeypatch.setenv("PET_MAX_RESTARTS", "3")
    monkeypatch.setenv("PET_STANDALONE", "1")
    a = launcher.parse_args(["t.py"])
    assert a.nproc_per_node == "4" and a.max_restarts == 3 and a.standalone is True
    assert launcher.parse_args(["--nproc-per-node=2", "t.py"]).nproc_per_node == "2"  # the command line wins


def test_static_rendezvous_rejects_a_node_range(tmp_path):
    p = launch(tmp_path, "--nnodes=1:2", f"--master-port={free_port()}", timeout=60)
    assert p.returncode == 1 and "For static rendezvous, min_nodes must equal max_nodes" in p.stderr
    p = launch(tmp_path, "--rdzv-backend=etcd", "--rdzv-endpoint=localhost:2379", timeout=60)
    assert p.returncode == 1 and "rendezvous backend 'etcd' is not supported" in p.stderr


def _nodes(tmp_path, per_node_options, script, args=(), timeout=180):
    path = tmp_path / "train.py"
    path.write_text(script)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "minitorch.distributed.run", *opts, str(path), *args],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for opts in per_node_options
    ]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return [(p.returncode, out, err) for p, (out, err) in zip(procs, outs)]


@needs_gloo
def test_static_rendezvous_over_two_nodes(tmp_path):
    # two launchers on this machine stand in for two nodes of 2 workers each
    port = free_port()
    common = ["--nproc_per_node=2", "--nnodes=2", "--master_addr=127.0.0.1", f"--master_port={port}"]
    results = _nodes(tmp_path, [[*common, f"--node_rank={n}"] for n in range(2)], COLLECTIVE)
    both = ""
    for rc, out, err in results:
        assert rc == 0, err
        both += out
    for r in range(4):
        assert f"attempt 0 rank {r} of 4 sum 10.0" in both


@needs_gloo
def test_c10d_rendezvous_with_a_node_range_and_a_restart_across_nodes(tmp_path):
    port = free_port()
    common = [
        "--nproc-per-node=1",
        "--nnodes=1:2",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint=127.0.0.1:{port}",
        "--rdzv-id=job7",
        "--rdzv-conf=last_call_timeout=20",
        "--max-restarts=1",
    ]
    results = _nodes(tmp_path, [common, common], COLLECTIVE, args=("fail", "1", "1"), timeout=240)
    both = ""
    for rc, out, err in results:
        assert rc == 0, err
        both += out
    # attempt 0: rank 1 left before the group formed, its node restarted the round and the other node
    # followed (without using a restart of its own); attempt 1 spans both nodes again
    assert "attempt 0 rank" not in both
    for r in range(2):
        assert f"attempt 1 rank {r} of 2 sum 3.0" in both


def test_standalone_and_sigterm_stops_the_workers(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PLAIN)
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--standalone", "--nproc-per-node=2", str(path)]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0 and len(envs(p.stdout)) == 2
    sleeper = tmp_path / "sleep.py"
    sleeper.write_text("import os, time\nos.write(1, f'pid {os.getpid()}\\n'.encode())\ntime.sleep(120)\n")
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node=2", str(sleeper)]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids = []
    try:
        deadline = time.monotonic() + 60
        while len(pids) < 2 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith("pid"):
                pids.append(int(line.split()[1]))
        assert len(pids) == 2
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "SignalException" in err
    time.sleep(0.2)
    for pid in pids:  # no orphan workers
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
