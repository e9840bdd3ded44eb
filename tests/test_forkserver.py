"""The run's fork server (forkserver, forkclient): a job handed to it runs in a copy of the server,
with the client's streams, folder, arguments and environment, and ends with the status a job
of its own would have; what it cannot run as a fresh process would, a fresh runner runs; a
client with no server runs the job itself. Real processes throughout: a server started as the
workflow starts it, clients started as Snakemake's shell starts them."""

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchreport import forkserver, rulejob

PROBE = """
import json, os, signal, sys, time
from benchreport import rulejob

rulejob.start(snakemake)
action = snakemake.params.action
report = {
    "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "marker": os.environ.get("PROBE_MARKER"),
    "preloaded": "matplotlib" in sys.modules, "argv": sys.argv[1:], "threads": snakemake.threads,
}
with open(snakemake.output.report, "w") as handle:
    json.dump(report, handle)
if action == "exit":
    sys.exit(3)
if action == "raise":
    raise RuntimeError("the probe failed on purpose")
if action == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
if action == "wait":
    time.sleep(600)
print("printed by the probe")
rulejob.finish()
"""
ONE_THREAD = {name: "1" for name in forkserver.THREAD_VARIABLES}


def wait_for(condition, what: str, limit: float = 120.0):
    """Wait until condition() holds (a process to start or end), failing after `limit` seconds."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A copy of the package with a probe rule script, and its fork server listening."""
    root = tmp_path_factory.mktemp("forkserver")
    scripts = root / "scripts"
    shutil.copytree(
        rulejob.SCRIPTS_DIR / "benchreport", scripts / "benchreport", ignore=shutil.ignore_patterns("__pycache__")
    )
    (scripts / "probe.py").write_text(PROBE)
    path = root / "socket" / "jobs"
    path.parent.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-P", str(scripts / "benchreport" / "forkserver.py"), str(path)],
        stdin=subprocess.PIPE,
        env=os.environ | ONE_THREAD,
    )
    wait_for(path.exists, "the server's socket")
    yield {"scripts": scripts, "socket": path, "process": process}
    process.stdin.close()
    process.wait(timeout=60)


def client(server, work: Path, action: str, *, env=None, socket=None, wait=True):
    """forkclient.py started as a rule job's command starts the runner: rule, log and threads as
    arguments, the namespace on standard input."""
    work.mkdir(exist_ok=True)
    namespace = {"input": [], "output": [["report", "report.json"]], "params": {"action": action}, "wildcards": {}}
    command = [
        sys.executable,
        "-P",
        str(server["scripts"] / "benchreport" / "forkclient.py"),
        "probe",
        "probe.log",
        "1",
    ]
    environment = os.environ | ONE_THREAD | {"PROBE_MARKER": f"marker-{action}"}
    environment |= {forkserver.SOCKET_VARIABLE: str(socket or server["socket"])} | (env or {})
    process = subprocess.Popen(
        command,
        cwd=work,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdin.write(json.dumps(namespace) + "\n")
    process.stdin.close()
    if wait:
        process.wait(timeout=300)
    return process


def report(work: Path) -> dict:
    return json.loads((work / "report.json").read_text())


def test_a_job_runs_in_a_copy_of_the_server_with_the_clients_streams_folder_and_environment(server, tmp_path):
    process = client(server, tmp_path / "ok", "ok")
    assert process.returncode == 0, process.stderr.read()
    seen = report(tmp_path / "ok")
    assert seen["ppid"] == server["process"].pid and seen["pid"] != process.pid
    assert seen["preloaded"] is True  # the server's imports, not a fresh Python's
    assert seen["cwd"] == str(tmp_path / "ok")
    assert seen["marker"] == "marker-ok" and seen["argv"] == ["probe", "probe.log", "1"] and seen["threads"] == 1
    assert process.stdout.read() == "printed by the probe\n"


@pytest.mark.parametrize(
    ("action", "status", "logged"),
    [("exit", 3, None), ("raise", 1, "RuntimeError: the probe failed on purpose"), ("kill", -signal.SIGKILL, None)],
)
def test_the_client_ends_with_the_jobs_status(server, tmp_path, action, status, logged):
    """sys.exit's code, 1 and the traceback in the job's log for an exception, and for a job
    killed by a signal, the client killed by the same one: as the job alone would end."""
    process = client(server, tmp_path, action)
    assert process.returncode == status
    assert report(tmp_path)["ppid"] == server["process"].pid
    if logged:
        assert logged in (tmp_path / "probe.log").read_text()


def test_a_job_the_server_cannot_run_as_a_fresh_process_would_runs_in_a_fresh_runner(server, tmp_path):
    """A job with two threads: the numerical libraries the server loaded read one from the
    environment, so the job runs in a Python of its own, started from the server's copy."""
    process = client(server, tmp_path, "ok", env={name: "2" for name in forkserver.THREAD_VARIABLES})
    assert process.returncode == 0
    seen = report(tmp_path)
    assert seen["ppid"] == server["process"].pid and seen["preloaded"] is False


def test_with_no_server_the_client_runs_the_job_itself(server, tmp_path):
    process = client(server, tmp_path, "ok", socket=tmp_path / "no-server")
    assert process.returncode == 0
    seen = report(tmp_path)
    assert seen["pid"] == process.pid and seen["preloaded"] is False and seen["marker"] == "marker-ok"
    assert process.stdout.read() == "printed by the probe\n"


@pytest.mark.parametrize("how", ["told", "killed"])
def test_a_job_ends_when_its_client_is_told_to_end_or_killed(server, tmp_path, how):
    """Snakemake ends a job by signalling its process: the client passes the signal on; a client
    killed outright (SIGKILL, which it cannot pass on) leaves the server to end the job."""
    process = client(server, tmp_path, "wait", wait=False)
    wait_for((tmp_path / "report.json").exists, "the job to start")
    job = report(tmp_path)["pid"]
    process.send_signal(signal.SIGTERM if how == "told" else signal.SIGKILL)
    process.wait(timeout=60)
    assert process.returncode == (-signal.SIGTERM if how == "told" else -signal.SIGKILL)
    wait_for(lambda: not Path(f"/proc/{job}").exists(), "the job to end")


def test_start_serves_small_runs_once_and_ends_with_the_process_that_started_it(monkeypatch):
    """start() from a Snakemake process: one server for the run, its socket in the environment
    the jobs inherit; none for a large run (and no server of an enclosing run is left to its jobs),
    none when switched off; and the server ends, its socket gone, once the pipe from the starting
    process closes."""
    monkeypatch.setattr(forkserver, "_SERVER", [])
    monkeypatch.setenv(forkserver.SOCKET_VARIABLE, "/an/enclosing/run/jobs")
    assert forkserver.start(forkserver.MAX_ATTEMPTS + 1) is None
    assert forkserver.SOCKET_VARIABLE not in os.environ
    monkeypatch.setenv(forkserver.SOCKET_VARIABLE, "off")
    assert forkserver.start(10) is None and os.environ[forkserver.SOCKET_VARIABLE] == "off"
    monkeypatch.delenv(forkserver.SOCKET_VARIABLE)
    runner = forkserver.start(10)
    try:
        assert runner == str(forkserver.PACKAGE_DIR / "forkclient.py")
        socket_path = Path(os.environ[forkserver.SOCKET_VARIABLE])
        assert forkserver.start(10) == runner and len(forkserver._SERVER) == 3  # one server per run
        wait_for(socket_path.exists, "the server's socket")
    finally:
        forkserver.stop()
        atexit.unregister(forkserver.stop)
    assert forkserver._SERVER[0].returncode == 0
    assert not socket_path.exists() and not socket_path.parent.exists()
